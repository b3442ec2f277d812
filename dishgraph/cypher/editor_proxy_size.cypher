// example: {"cls": "洋葱", "base": "白灼菜心"}
// Size of the graph editor's target stand-in and of the whole background: parsed recipes of dishes other
// than the base, those handling the new ingredient class (proxy) and all of them (others).
// params: $cls, $base
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE d.name <> $base AND r.parsed = true
OPTIONAL MATCH (r)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(:ProtoAction)-[:INGREDIENT]->(c:IngredientClass)
WHERE c.name = $cls
WITH r, count(c) AS hits
RETURN sum(CASE WHEN hits > 0 THEN 1 ELSE 0 END) AS proxy, count(r) AS others
