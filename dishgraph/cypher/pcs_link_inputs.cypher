// A step consumes a comestible (two MATCH clauses: the comma form is ~100x slower on Ladybug).
// params: $rows [{step, comestible}]
UNWIND $rows AS r
MATCH (s:Step {id: r.step})
MATCH (c:Comestible {id: r.comestible})
MERGE (s)-[:INPUT]->(c)
