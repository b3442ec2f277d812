// example: {"cls": "油菜", "exclude": ["白灼菜心"]}
// The dishes with recipes handling ingredient class $cls (a step on it), but the excluded ones, and how many
// such recipes each has: the size and provenance of the class pool of a composed target.
// params: $cls, $exclude
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(:ProtoAction)
      -[:INGREDIENT]->(c:IngredientClass {name: $cls})
WHERE r.parsed = true AND NOT d.name IN $exclude
WITH d, count(DISTINCT r) AS recipes
RETURN d.name AS dish, recipes
ORDER BY recipes DESC, dish
