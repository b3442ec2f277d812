// What must follow an action in a dish: effects e with (action)-[:MUST_PRECEDE {dish}]->(e), every source.
// params: $dish, $action
MATCH (a:ProtoAction {key: $action})-[m:MUST_PRECEDE]->(e:ProtoAction)
WHERE m.dish = $dish
RETURN a.key AS cause, e.key AS effect, m.ate AS ate, m.n_treated AS n_treated, m.n_control AS n_control,
       m.estimator AS estimator, m.source AS source, m.window AS window
ORDER BY source, effect
