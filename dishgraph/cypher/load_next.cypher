// Order edges between consecutive steps of a recipe (two MATCH clauses: Ladybug's comma form is ~100x slower).
// params: $rows [{src, dst}]
UNWIND $rows AS r
MATCH (a:Step {id: r.src})
MATCH (b:Step {id: r.dst})
MERGE (a)-[:NEXT]->(b)
