// Set the culinary flag of proto-actions (the typed reading's verdict, see loader.mark_culinary).
// params: $rows [{key, culinary}]
UNWIND $rows AS r
MATCH (a:ProtoAction {key: r.key})
SET a.culinary = r.culinary
