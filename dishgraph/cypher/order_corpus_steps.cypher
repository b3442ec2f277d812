// example: {"dishes": ["白灼菜心"]}
// The parsed recipes of some dishes ([] = every dish) as their steps in order: the CRG key of each step, its
// typed keys (foods by their own names, and lifted to the release's classes; null on steps written before they
// existed), its sentence and clause, and whether the typed reading hides its proto-action (culinary false).
// Order knowledge with evidence counts which action comes before which from these rows.
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true AND (size($dishes) = 0 OR d.name IN $dishes)
MATCH (r)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN d.name AS dish, r.id AS recipe, s.pos AS pos, a.key AS action, s.sentence AS sentence,
       s.clause AS clause, s.start AS start, s.phrase AS phrase, a.culinary AS culinary,
       s.typed_action AS typed, s.typed_classes AS typed_classes
ORDER BY dish, recipe, pos
