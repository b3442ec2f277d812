// Where every proto-action tends to occur in real recipes: mean relative position (0 = first action, 1 = last)
// of its steps over every parsed recipe. `editor_action_positions` for all actions at once: the graph editor
// reads this table once for all pairs (one scan of the steps instead of one a pair).
MATCH (r:Recipe)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
WHERE r.n_actions > 1
RETURN a.key AS action, avg(s.pos * 1.0 / (r.n_actions - 1)) AS rel_pos, count(s) AS n
ORDER BY action
