// What must precede an action in a dish: causes c with (c)-[:MUST_PRECEDE {dish}]->(action), every source.
// params: $dish, $action
MATCH (c:ProtoAction)-[m:MUST_PRECEDE]->(a:ProtoAction {key: $action})
WHERE m.dish = $dish
RETURN c.key AS cause, a.key AS effect, m.ate AS ate, m.n_treated AS n_treated, m.n_control AS n_control,
       m.estimator AS estimator, m.source AS source, m.window AS window
ORDER BY source, cause
