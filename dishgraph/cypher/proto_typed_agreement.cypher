// Steps per proto-action, grouped by their typed reading lifted to the release's classes (typed_classes; steps
// written before it existed have their typed key in class space already), their typed key on foods' own names
// and culinary flag: what loader.mark_culinary weighs to judge the proto-action (and the typed keys' own nodes).
// params: (none)
MATCH (s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN a.key AS key, coalesce(s.typed_classes, s.typed_action) AS typed, s.typed_action AS typed_key,
       s.culinary AS culinary, count(*) AS n
