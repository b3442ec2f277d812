// The typed reading's frequencies of dishes that had TYPED_USES edges (cleared first): the rows of
// typed_uses_counts MERGEd one by one (dishes without any edge get theirs in one bulk write instead).
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE d.name IN $dishes AND r.parsed = true
WITH d, count(r) AS total
MATCH (d)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(s:Step)
WHERE r.parsed = true AND s.culinary = true AND s.typed_action CONTAINS '|'
WITH d, total, s.typed_action AS key, count(DISTINCT r) AS n
MATCH (a:ProtoAction {key: key})
MERGE (d)-[u:TYPED_USES]->(a)
SET u.n = n, u.total = total, u.freq = n * 1.0 / total
RETURN d.name AS dish, count(a) AS actions
