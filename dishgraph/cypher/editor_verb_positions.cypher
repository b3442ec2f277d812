// example: {"verbs": ["切", "加入"]}
// Mean relative position of every step of the given verb classes over all parsed recipes (fallback placement
// for an inserted action never seen with exactly its ingredients).
// params: $verbs
MATCH (r:Recipe)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction)-[:VERB]->(v:VerbClass)
WHERE v.name IN $verbs AND r.n_actions > 1
RETURN v.name AS verb, avg(s.pos * 1.0 / (r.n_actions - 1)) AS rel_pos, count(s) AS n
ORDER BY verb
