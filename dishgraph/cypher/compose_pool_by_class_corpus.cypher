// example: {"cls": "油菜", "exclude": ["白灼菜心", "白灼秋葵"]}
// compose_pool_by_class per corpus (recipe source tag): per corpus and proto-action, how many recipes handling
// ingredient class $cls (a step on it), across every dish but the excluded ones, do the action.
// params: $cls, $exclude
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(:ProtoAction)
      -[:INGREDIENT]->(c:IngredientClass {name: $cls})
WHERE r.parsed = true AND NOT d.name IN $exclude
WITH DISTINCT r
MATCH (r)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN r.source AS corpus, a.key AS action, count(DISTINCT r) AS recipes
ORDER BY corpus, action
