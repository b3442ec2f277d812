// Distinct proto-actions instantiated by at least one step.
// params: (none)
MATCH (:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN count(DISTINCT a) AS n
