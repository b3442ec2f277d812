// Order edges between consecutive steps of a recipe.
// params: $rows [{src, dst}]
UNWIND $rows AS r
MATCH (a:Step {id: r.src}), (b:Step {id: r.dst})
MERGE (a)-[:NEXT]->(b)
