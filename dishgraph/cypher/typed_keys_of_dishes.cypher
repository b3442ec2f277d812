// The typed keys of these dishes' cooking steps, each with whether a complete ProtoAction has it yet (its VERB
// edge, written last): keys without one (切|洋葱| where every recipe says 切丝 after 洋葱洗净), or left half-written
// by a killed run, are written before TYPED_USES points at them, and no row at all means there is nothing to
// bulk-load (the probe of typed_uses_counts).
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(s:Step)
WHERE d.name IN $dishes AND r.parsed = true AND s.culinary = true AND s.typed_action CONTAINS '|'
WITH DISTINCT s.typed_action AS key
OPTIONAL MATCH (a:ProtoAction {key: key})-[:VERB]->(:VerbClass)
RETURN key, a IS NOT NULL AS known
