// Every proto-action's share of all parsed recipes (how common it is anywhere): the insert ranker's feature
// for telling an action the target's sources stress from one every recipe does.
// params: (none)
MATCH (r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(a:ProtoAction)
WHERE r.parsed = true
RETURN a.key AS action, count(DISTINCT r) AS recipes
ORDER BY action
