// example: {"atom": "action:白灼", "exclude": ["白灼菜心", "白灼秋葵"]}
// compose_pool_by_component per corpus (recipe source tag): per corpus and proto-action, how many parsed recipes
// of the dishes whose name has DiNeR component $atom (but the excluded ones) do the action.
// params: $atom, $exclude
MATCH (d:Dish)-[:HAS_COMPONENT]->(c:Component {key: $atom})
WHERE NOT d.name IN $exclude
MATCH (d)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(a:ProtoAction)
WHERE r.parsed = true
RETURN r.source AS corpus, a.key AS action, count(DISTINCT r) AS recipes
ORDER BY corpus, action
