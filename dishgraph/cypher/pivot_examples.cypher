// Example phrases (Step.phrase from real recipes) of the given proto-actions, preferring the given dishes'
// recipes (in_dish first), in a stable order; Python keeps the first few distinct phrases per action.
// params: $keys, $dishes
MATCH (r:Recipe)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
WHERE a.key IN $keys
RETURN a.key AS action, s.phrase AS phrase, r.dish IN $dishes AS in_dish, s.id AS step
ORDER BY action, in_dish DESC, step
