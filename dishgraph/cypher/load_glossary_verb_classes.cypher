// Link verb surface forms to their VerbClass nodes (created if absent).
// params: $rows [{key, cls}]
UNWIND $rows AS r
MATCH (f:SurfaceForm {key: r.key})
MERGE (c:VerbClass {name: r.cls})
MERGE (f)-[:FORM_OF]->(c)
