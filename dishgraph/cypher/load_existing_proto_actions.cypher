// example: {"keys": ["炒|鸡肉|锅"]}
// Which of these proto-actions exist, and whether each has its VERB edge (written last by a bulk load, so
// a proto-action with it is complete): the delta check of a bulk load.
// params: $keys
UNWIND $keys AS k
MATCH (a:ProtoAction {key: k})
OPTIONAL MATCH (a)-[:VERB]->(v:VerbClass)
RETURN a.key AS key, count(v) AS verbs
