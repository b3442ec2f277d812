// Steps per proto-action, grouped by their typed reading (typed key and culinary flag): what
// loader.mark_culinary weighs to judge the proto-action.
// params: (none)
MATCH (s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN a.key AS key, s.typed_action AS typed, s.culinary AS culinary, count(*) AS n
