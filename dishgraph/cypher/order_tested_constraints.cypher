// example: {"dishes": ["白灼菜心", "*"], "source": "tested", "min_confidence": 0.0}
// The tested order constraints a dish's check reads: its own (dish and family level) and the global ones
// (dish "*"), kept ones only, with their evidence, at least $min_confidence sure.
// params: $dishes, $source, $min_confidence
MATCH (c:ProtoAction)-[m:MUST_PRECEDE]->(e:ProtoAction)
WHERE m.source = $source AND m.dish IN $dishes AND m.kept = true AND m.confidence >= $min_confidence
RETURN c.key AS cause, e.key AS effect, m.dish AS dish, m.level AS level, m.ate AS ate, m.n_before AS n_before,
       m.n_after AS n_after, m.ci_low AS ci_low, m.ci_high AS ci_high, m.p_value AS p_value, m.q_value AS q_value,
       m.confidence AS confidence
ORDER BY level, cause, effect
