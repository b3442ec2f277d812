// Every order constraint of a dish (all sources and windows), for checking an action sequence.
// params: $dish
MATCH (c:ProtoAction)-[m:MUST_PRECEDE]->(e:ProtoAction)
WHERE m.dish = $dish
RETURN c.key AS cause, e.key AS effect, m.ate AS ate, m.n_treated AS n_treated, m.n_control AS n_control,
       m.estimator AS estimator, m.source AS source, m.window AS window
ORDER BY source, cause, effect
