// Link proto-actions to their tool classes (one row per action x class).
// params: $rows [{key, name}]
UNWIND $rows AS r
MATCH (a:ProtoAction {key: r.key})
MERGE (c:ToolClass {name: r.name})
MERGE (a)-[:TOOL]->(c)
