// Link proto-actions to their ingredient classes (one row per action x class).
// params: $rows [{key, name}]
UNWIND $rows AS r
MATCH (a:ProtoAction {key: r.key})
MERGE (c:IngredientClass {name: r.name})
MERGE (a)-[:INGREDIENT]->(c)
