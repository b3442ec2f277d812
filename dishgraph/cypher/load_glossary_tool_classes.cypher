// Link tool surface forms to their ToolClass nodes (created if absent).
// params: $rows [{key, cls}]
UNWIND $rows AS r
MATCH (f:SurfaceForm {key: r.key})
MERGE (c:ToolClass {name: r.cls})
MERGE (f)-[:FORM_OF]->(c)
