// Proto-actions per dish by number of recipes that use them (most used first).
// params: (none)
MATCH (d:Dish)-[:HAS_RECIPE]->(x:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN d.name AS dish, a.key AS action, count(DISTINCT x) AS recipes
ORDER BY dish, recipes DESC, action
