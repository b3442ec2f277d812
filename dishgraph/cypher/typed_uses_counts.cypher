// The TYPED_USES rows of these dishes: per dish and typed key, the share of the dish's parsed recipes with a
// cooking step whose typed reading is that key (Step.typed_action of culinary steps: 切丝 after 洋葱洗净 counts
// for 切|洋葱|, where the CRG key is 切|丝|). Columns in the order a bulk load takes (from, to, freq, n, total);
// every key has its ProtoAction node by then (typed_keys_of_dishes), so the bulk load finds both ends by key.
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE d.name IN $dishes AND r.parsed = true
WITH d, count(r) AS total
MATCH (d)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(s:Step)
WHERE r.parsed = true AND s.culinary = true AND s.typed_action CONTAINS '|'
WITH d, total, s.typed_action AS key, count(DISTINCT r) AS n
RETURN d.name AS `from`, key AS `to`, n * 1.0 / total AS freq, n, total
