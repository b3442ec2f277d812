// Recipes not yet parsed (the resume point of an interrupted ingest).
// params: (none)
MATCH (x:Recipe)
WHERE x.parsed = false
RETURN x.id AS id, x.dish AS dish, x.text AS text
ORDER BY x.id
