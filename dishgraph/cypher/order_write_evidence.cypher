// Add the evidence to stored order constraints (the CRG method's estimated edges keep their meaning): the
// effect's 95% interval, p-value, Benjamini–Hochberg q-value per dish and the decision.
// params: $rows [{cause, effect, dish, source, window, ci_low, ci_high, p_value, q_value, kept, decision}]
UNWIND $rows AS r
MATCH (c:ProtoAction {key: r.cause})-[m:MUST_PRECEDE]->(e:ProtoAction {key: r.effect})
WHERE m.dish = r.dish AND m.source = r.source AND m.window = r.window
SET m.ci_low = r.ci_low, m.ci_high = r.ci_high, m.p_value = r.p_value, m.q_value = r.q_value, m.kept = r.kept,
    m.decision = r.decision
