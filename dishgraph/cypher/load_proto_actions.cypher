// Upsert proto-actions with their verb class.
// params: $rows [{key, verb, ingredients, tools}]
UNWIND $rows AS r
MERGE (a:ProtoAction {key: r.key})
ON CREATE SET a.verb = r.verb, a.ingredients = r.ingredients, a.tools = r.tools
MERGE (v:VerbClass {name: r.verb})
MERGE (a)-[:VERB]->(v)
