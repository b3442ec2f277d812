// How many order constraints a dish has from each source (estimated, composed, crg-release).
// params: $dish
MATCH (:ProtoAction)-[m:MUST_PRECEDE]->(:ProtoAction)
WHERE m.dish = $dish
RETURN m.source AS source, count(m) AS constraints
ORDER BY source
