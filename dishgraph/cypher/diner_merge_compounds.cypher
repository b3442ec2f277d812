// Upsert compounds (sets of >= 2 components; key = sorted component keys joined by '+').
// params: $rows [{key, size}]
UNWIND $rows AS r
MERGE (k:Compound {key: r.key})
SET k.size = r.size
