// Store estimated order constraints: (cause)-[:MUST_PRECEDE {dish, ate, n_treated, n_control, estimator,
// source, window}]->(effect), one edge per (cause, effect, dish, source, window).
// params: $rows [{cause, effect, dish, ate, n_treated, n_control, estimator, source, window}]
UNWIND $rows AS r
MATCH (c:ProtoAction {key: r.cause})
MATCH (e:ProtoAction {key: r.effect})
MERGE (c)-[m:MUST_PRECEDE {dish: r.dish, source: r.source, window: r.window}]->(e)
SET m.ate = r.ate, m.n_treated = r.n_treated, m.n_control = r.n_control, m.estimator = r.estimator
