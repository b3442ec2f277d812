// Store tested order constraints (source "tested"): (cause)-[:MUST_PRECEDE {dish, level, …}]->(effect), with
// their support (n_before, n_after), effect and interval, p- and q-value, decision and confidence. Global-level
// ones carry dish "*".
// params: $rows [{cause, effect, dish, level, ate, n_before, n_after, ci_low, ci_high, p_value, q_value, kept, decision, confidence, estimator, source, window}]
UNWIND $rows AS r
MATCH (c:ProtoAction {key: r.cause})
MATCH (e:ProtoAction {key: r.effect})
MERGE (c)-[m:MUST_PRECEDE {dish: r.dish, source: r.source, window: r.window}]->(e)
SET m.level = r.level, m.ate = r.ate, m.n_before = r.n_before, m.n_after = r.n_after, m.ci_low = r.ci_low,
    m.ci_high = r.ci_high, m.p_value = r.p_value, m.q_value = r.q_value, m.kept = r.kept, m.decision = r.decision,
    m.confidence = r.confidence, m.estimator = r.estimator
