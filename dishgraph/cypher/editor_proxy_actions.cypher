// example: {"cls": "洋葱", "base": "白灼菜心", "keys": ["淋|蔬菜|", "加入|盐|"]}
// Stand-in for the unseen target dish: the recipes of OTHER dishes that handle the new ingredient class. Per
// given proto-action, how many of those recipes do it (the graph editor contrasts this with the base dish).
// params: $cls, $base, $keys
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(:ProtoAction)
      -[:INGREDIENT]->(c:IngredientClass)
WHERE c.name = $cls AND d.name <> $base AND r.parsed = true
WITH DISTINCT r
MATCH (r)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(a:ProtoAction)
WHERE a.key IN $keys
RETURN a.key AS action, count(DISTINCT r) AS recipes
ORDER BY action
