// Upsert dishes by name.
// params: $rows [{name, source}]
UNWIND $rows AS r
MERGE (d:Dish {name: r.name})
ON CREATE SET d.source = r.source
