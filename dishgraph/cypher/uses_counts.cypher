// The USES rows of uses_materialize without writing them: per dish and action, the share of the dish's parsed
// recipes with a step of the action (freq = n / total). Columns in the order a bulk load of USES takes (from,
// to, then freq, n, total): for dishes that have no USES edge yet, created in one bulk write instead of a MERGE each.
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE d.name IN $dishes AND r.parsed = true
WITH d, count(r) AS total
MATCH (d)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(a:ProtoAction)
WHERE r.parsed = true
WITH d, total, a, count(DISTINCT r) AS n
RETURN d.name AS `from`, a.key AS `to`, n * 1.0 / total AS freq, n, total
