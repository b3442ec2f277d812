// example: {"dishes": ["白灼菜心"]}
// The ingredient classes the parsed recipes of $dishes act on: the class pools of composed targets that these
// dishes' recipes belong to (so an ingest that touched them can change exactly those targets' knowledge).
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(:ProtoAction)
      -[:INGREDIENT]->(c:IngredientClass)
WHERE r.parsed = true AND d.name IN $dishes
RETURN DISTINCT c.name AS cls
ORDER BY cls
