// The comestible flow of one recipe: input comestible -> (step) -> output comestible, a DAG in step order.
// params: $recipe
MATCH (x:Recipe {id: $recipe})-[:HAS_STEP]->(s:Step)-[:INPUT]->(a:Comestible)
MATCH (s)-[:OUTPUT]->(b:Comestible)
RETURN a.id AS source, a.name AS source_name, s.pos AS pos, s.action AS action, b.id AS target,
       b.name AS target_name
ORDER BY pos, source
