// A recipe's PCS table read back from the graph: per step its input names and output name.
// params: $recipe
MATCH (x:Recipe {id: $recipe})-[:HAS_STEP]->(s:Step)
OPTIONAL MATCH (s)-[:INPUT]->(i:Comestible)
OPTIONAL MATCH (s)-[:OUTPUT]->(o:Comestible)
RETURN s.pos AS pos, s.instruction AS instruction, s.action AS action, collect(i.name) AS inputs,
       o.name AS output
ORDER BY pos
