// example: {"atom": "action:白灼", "exclude": ["白灼菜心"]}
// compose_component_dishes per corpus (recipe source tag): the dishes whose name has DiNeR component $atom (but
// the excluded ones) and their parsed recipes of each corpus, so each corpus pools as a source of its own.
// params: $atom, $exclude
MATCH (d:Dish)-[:HAS_COMPONENT]->(c:Component {key: $atom})
WHERE NOT d.name IN $exclude
MATCH (d)-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true
RETURN r.source AS corpus, d.name AS dish, count(r) AS recipes
ORDER BY corpus, recipes DESC, dish
