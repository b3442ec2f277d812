// Chain consecutive PCS steps of a recipe.
// params: $rows [{a, b}]
UNWIND $rows AS r
MATCH (a:Step {id: r.a})
MATCH (b:Step {id: r.b})
MERGE (a)-[:NEXT]->(b)
