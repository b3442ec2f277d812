// Link a dish to every compound of its name.
// params: $rows [{dish, compound}]
UNWIND $rows AS r
MATCH (d:Dish {name: r.dish}), (k:Compound {key: r.compound})
MERGE (d)-[:HAS_COMPOUND]->(k)
