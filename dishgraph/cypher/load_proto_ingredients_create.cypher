// INGREDIENT edges of proto-actions just created by load_proto_actions_create (the classes must exist).
// params: $rows [{key, name}]
UNWIND $rows AS r
MATCH (a:ProtoAction {key: r.key})
MATCH (c:IngredientClass {name: r.name})
CREATE (a)-[:INGREDIENT]->(c)
