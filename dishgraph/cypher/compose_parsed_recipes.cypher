// The number of parsed recipes in the graph: composed knowledge records it and is stale once it changes.
// params: (none)
MATCH (r:Recipe)
WHERE r.parsed = true
RETURN count(r) AS recipes
