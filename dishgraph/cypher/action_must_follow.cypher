// What must follow an action in a dish: effects e with (action)-[:MUST_PRECEDE {dish}]->(e), every source.
// params: $dish, $action
MATCH (a:ProtoAction {key: $action})-[m:MUST_PRECEDE]->(e:ProtoAction)
WHERE m.dish = $dish
RETURN a.key AS cause, e.key AS effect, m.ate AS ate, m.n_treated AS n_treated, m.n_control AS n_control,
       m.estimator AS estimator, m.source AS source, m.window AS window, m.dish AS dish, m.level AS level,
       m.ci_low AS ci_low, m.ci_high AS ci_high, m.q_value AS q_value, m.kept AS kept, m.decision AS decision,
       m.confidence AS confidence, m.n_before AS n_before, m.n_after AS n_after
ORDER BY source, effect
