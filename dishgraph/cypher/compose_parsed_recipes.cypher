// The number of parsed recipes composition can read: composed knowledge records it and is stale once it changes.
// PizzaCommonSense tables (recipes with an annotator: English steps, no name components, no glossary classes)
// cannot join any pool, so loading them leaves composed knowledge current.
// params: (none)
MATCH (r:Recipe)
WHERE r.parsed = true AND r.annotator IS NULL
RETURN count(r) AS recipes
