// PCS steps that consume two or more outputs of earlier steps (joins in the comestible flow), in one
// release split ("" = all), with the earlier outputs they join.
// params: $split, $limit
// example: {"split": "", "limit": 5}
MATCH (x:Recipe)-[:HAS_STEP]->(s:Step)-[:INPUT]->(c:Comestible)<-[:OUTPUT]-(:Step)
WHERE $split = "" OR x.split = $split
WITH x, s, collect(DISTINCT c.name) AS joined
WHERE size(joined) >= 2
RETURN x.id AS recipe, x.dish AS dish, s.pos AS pos, s.instruction AS instruction, joined
ORDER BY recipe, pos
LIMIT $limit
