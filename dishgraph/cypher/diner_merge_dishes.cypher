// Upsert Dish nodes by name (small loads and tests; the lead's ingest has its own query).
// params: $rows [{name}]
UNWIND $rows AS r
MERGE (d:Dish {name: r.name})
