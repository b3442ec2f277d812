// Mean relative position of the steps of every verb class over all parsed recipes: `editor_verb_positions`
// for all verbs at once (the graph editor reads it once for all pairs).
MATCH (r:Recipe)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction)-[:VERB]->(v:VerbClass)
WHERE r.n_actions > 1
RETURN v.name AS verb, avg(s.pos * 1.0 / (r.n_actions - 1)) AS rel_pos, count(s) AS n
ORDER BY verb
