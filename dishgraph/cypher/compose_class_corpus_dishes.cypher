// example: {"cls": "油菜", "exclude": ["白灼菜心"]}
// compose_class_dishes per corpus (recipe source tag): the dishes with recipes handling ingredient class $cls
// (but the excluded ones) and how many such recipes each has in each corpus.
// params: $cls, $exclude
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(:ProtoAction)
      -[:INGREDIENT]->(c:IngredientClass {name: $cls})
WHERE r.parsed = true AND NOT d.name IN $exclude
WITH r.source AS corpus, d, count(DISTINCT r) AS recipes
RETURN corpus, d.name AS dish, recipes
ORDER BY corpus, recipes DESC, dish
