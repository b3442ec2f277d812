// example: {"atom": "action:白灼"}
// compose_pool_by_component per contributing dish: per dish and proto-action, how many of the dish's parsed
// recipes do it (USES.n). Read once per component, a pool without any dish is this less that dish's rows:
// the weight fit composes hundreds of pseudo-pair targets, each leaving out its own two dishes.
// params: $atom
MATCH (d:Dish)-[:HAS_COMPONENT]->(c:Component {key: $atom})
MATCH (d)-[u:USES]->(a:ProtoAction)
RETURN d.name AS dish, a.key AS action, sum(u.n) AS recipes
ORDER BY action, dish
