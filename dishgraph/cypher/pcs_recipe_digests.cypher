// The stored content digests of PCS recipes (which tables a re-run or a resumed ingest can skip).
// params: $ids
UNWIND $ids AS rid
MATCH (x:Recipe {id: rid})
RETURN x.id AS id, x.digest AS digest
