// Every order constraint of a dish (all sources and windows), for checking an action sequence.
// params: $dish
MATCH (c:ProtoAction)-[m:MUST_PRECEDE]->(e:ProtoAction)
WHERE m.dish = $dish
RETURN c.key AS cause, e.key AS effect, m.ate AS ate, m.n_treated AS n_treated, m.n_control AS n_control,
       m.estimator AS estimator, m.source AS source, m.window AS window, m.dish AS dish, m.level AS level,
       m.ci_low AS ci_low, m.ci_high AS ci_high, m.q_value AS q_value, m.kept AS kept, m.decision AS decision,
       m.confidence AS confidence, m.n_before AS n_before, m.n_after AS n_after
ORDER BY source, cause, effect
