// Dish-level action frequencies (CRG 4.2): f_d(a) = share of d's parsed recipes with a step instantiating a,
// materialized as (:Dish)-[:USES {freq, n, total}]->(:ProtoAction). Absent USES means frequency 0.
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE d.name IN $dishes AND r.parsed = true
WITH d, count(r) AS total
MATCH (d)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(a:ProtoAction)
WHERE r.parsed = true
WITH d, total, a, count(DISTINCT r) AS n
MERGE (d)-[u:USES]->(a)
SET u.n = n, u.total = total, u.freq = n * 1.0 / total
RETURN d.name AS dish, count(a) AS actions
