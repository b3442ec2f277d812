// example: {"ids": ["crg:0000000000000000"]}
// Ids of recipes already parsed, for skipping work in a resumed ingest (primary-key lookups, no scan).
// params: $ids
UNWIND $ids AS id
MATCH (x:Recipe {id: id})
WHERE x.parsed = true
RETURN x.id AS id
