// example: {"dish": "白灼秋葵", "action": "切|洋葱|"}
// What must come before an action in a dish, and how sure we are: the kept tested constraints into the action,
// the dish's own (level dish or family) and the corpus's (level global, dish "*"), surest first. n_before /
// n_after: recipes with the cause first / with the action first; confidence: the lower 95% bound of the share
// of recipes keeping the order; q_value: Benjamini–Hochberg over the pairs tested at that level.
// params: $dish, $action
MATCH (c:ProtoAction)-[m:MUST_PRECEDE]->(x:ProtoAction {key: $action})
WHERE m.source = "tested" AND m.kept = true AND m.dish IN [$dish, "*"]
RETURN c.key AS cause, x.key AS effect, m.level AS level, m.n_before AS n_before, m.n_after AS n_after,
       m.ci_low AS ci_low, m.ci_high AS ci_high, m.q_value AS q_value, m.confidence AS confidence
ORDER BY confidence DESC, level, cause
