// Typed keys of these dishes' cooking steps that no ProtoAction node has yet (切|洋葱| where every recipe says
// 切丝 after naming the onion): created before TYPED_USES can point at them.
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(s:Step)
WHERE d.name IN $dishes AND r.parsed = true AND s.culinary = true AND s.typed_action CONTAINS '|'
WITH DISTINCT s.typed_action AS key
OPTIONAL MATCH (a:ProtoAction {key: key})
WITH key, a
WHERE a IS NULL
RETURN key
ORDER BY key
