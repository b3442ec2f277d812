// A step turned one of its input comestibles into its output (the flow without step nodes, for path queries).
// params: $rows [{a, b, pos, action}]
UNWIND $rows AS r
MATCH (a:Comestible {id: r.a})
MATCH (b:Comestible {id: r.b})
MERGE (a)-[f:FEEDS {pos: r.pos}]->(b)
SET f.action = r.action
