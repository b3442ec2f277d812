// Ids of recipes already parsed, for skipping work in a resumed ingest.
// params: $ids
MATCH (x:Recipe)
WHERE x.id IN $ids AND x.parsed = true
RETURN x.id AS id
