// Mark PCS recipes as completely loaded with their content digest (written after all else of the batch).
// params: $rows [{id, digest}]
UNWIND $rows AS r
MATCH (x:Recipe {id: r.id})
SET x.digest = r.digest
