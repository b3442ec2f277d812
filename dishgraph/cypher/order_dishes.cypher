// Dishes that have order constraints, per source, with the number of constraints.
// params: (none)
MATCH (:ProtoAction)-[m:MUST_PRECEDE]->(:ProtoAction)
RETURN m.dish AS dish, m.source AS source, count(m) AS constraints
ORDER BY dish, source
