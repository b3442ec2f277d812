// example: {"dish": "白灼菜心"}
// One dish's parsed recipes, each with the set of its proto-action keys: the base dish's recipes, whose
// changed ingredient class composition swaps for the new one recipe by recipe.
// params: $dish
MATCH (d:Dish {name: $dish})-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true
OPTIONAL MATCH (r)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN r.id AS recipe, collect(DISTINCT a.key) AS actions
ORDER BY recipe
