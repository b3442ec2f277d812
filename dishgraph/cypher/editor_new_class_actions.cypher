// example: {"cls": "洋葱", "base": "白灼菜心"}
// How the new ingredient class is handled in the recipes of every OTHER dish (a stand-in for the unseen target
// dish): per proto-action on the class, the recipes doing it (sum of USES.n) and the dishes. The base dish is
// left out so its own habits do not count as the new ingredient's; target dishes have no recipes.
// params: $cls, $base
MATCH (d:Dish)-[u:USES]->(a:ProtoAction)-[:INGREDIENT]->(c:IngredientClass)
WHERE c.name = $cls AND d.name <> $base
RETURN a.key AS action, sum(u.n) AS recipes, count(DISTINCT d) AS dishes
ORDER BY recipes DESC, action
