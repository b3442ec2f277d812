// VERB edges of proto-actions just created by load_proto_actions_create; written last: a proto-action with
// its VERB edge is complete for the delta check (load_existing_proto_actions).
// params: $rows [{key, name}]
UNWIND $rows AS r
MATCH (a:ProtoAction {key: r.key})
MATCH (v:VerbClass {name: r.name})
CREATE (a)-[:VERB]->(v)
