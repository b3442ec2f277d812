// A step produces a comestible.
// params: $rows [{step, comestible}]
UNWIND $rows AS r
MATCH (s:Step {id: r.step})
MATCH (c:Comestible {id: r.comestible})
MERGE (s)-[:OUTPUT]->(c)
