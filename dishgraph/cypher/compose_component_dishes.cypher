// example: {"atom": "action:白灼", "exclude": ["白灼菜心"]}
// The dishes whose name has DiNeR component $atom (but the excluded ones) and their parsed recipes: who
// contributes to a composed target, and how much (recorded as COMPOSED_FROM provenance).
// params: $atom, $exclude
MATCH (d:Dish)-[:HAS_COMPONENT]->(c:Component {key: $atom})
WHERE NOT d.name IN $exclude
MATCH (d)-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true
RETURN d.name AS dish, count(r) AS recipes
ORDER BY recipes DESC, dish
