// example: {"cls": "油菜", "exclude": ["白灼菜心", "白灼秋葵"]}
// Composed knowledge: how recipes handling ingredient class $cls (a step on it) go, across every dish but the
// excluded ones: per proto-action, the number of those recipes doing it.
// params: $cls, $exclude
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(:ProtoAction)
      -[:INGREDIENT]->(c:IngredientClass {name: $cls})
WHERE r.parsed = true AND NOT d.name IN $exclude
WITH DISTINCT r
MATCH (r)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN a.key AS action, count(DISTINCT r) AS recipes
ORDER BY action
