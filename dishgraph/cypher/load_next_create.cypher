// Order edges between consecutive steps created by load_steps_create (absent by the same delta check).
// params: $rows [{src, dst}]
UNWIND $rows AS r
MATCH (a:Step {id: r.src})
MATCH (b:Step {id: r.dst})
CREATE (a)-[:NEXT]->(b)
