// Link ingredient surface forms to their IngredientClass nodes (created if absent).
// params: $rows [{key, cls}]
UNWIND $rows AS r
MATCH (f:SurfaceForm {key: r.key})
MERGE (c:IngredientClass {name: r.cls})
MERGE (f)-[:FORM_OF]->(c)
