// example: {"cls": "油菜"}
// compose_pool_by_class per dish: per dish and proto-action, how many of the dish's recipes handling
// ingredient class $cls do it. A recipe belongs to one dish, so the pool without some dishes is the sum over
// the others (read once per class however many targets leave out their own dishes).
// params: $cls
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(:ProtoAction)
      -[:INGREDIENT]->(c:IngredientClass {name: $cls})
WHERE r.parsed = true
WITH DISTINCT d, r
MATCH (r)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN d.name AS dish, a.key AS action, count(DISTINCT r) AS recipes
ORDER BY action, dish
