// example: {"keys": ["切|洋葱|", "加入|盐|"]}
// Where proto-actions tend to occur in real recipes: mean relative position (0 = first action, 1 = last) of
// their steps over every parsed recipe, so the graph editor can place an inserted clause where it usually goes.
// params: $keys
MATCH (r:Recipe)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
WHERE a.key IN $keys AND r.n_actions > 1
RETURN a.key AS action, avg(s.pos * 1.0 / (r.n_actions - 1)) AS rel_pos, count(s) AS n
ORDER BY action
