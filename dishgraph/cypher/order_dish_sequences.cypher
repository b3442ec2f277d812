// Each parsed recipe of a dish as its ordered proto-action keys (one row per step; a recipe without
// actions gives one row with null pos/action so it still counts as a unit).
// params: $dish
MATCH (d:Dish {name: $dish})-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true
OPTIONAL MATCH (r)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN r.id AS recipe, s.pos AS pos, a.key AS action
ORDER BY recipe, pos
