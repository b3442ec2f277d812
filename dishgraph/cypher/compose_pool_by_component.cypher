// example: {"atom": "action:白灼", "exclude": ["白灼菜心", "白灼秋葵"]}
// Composed knowledge: the recipes of every dish whose name has DiNeR component $atom (but the excluded dishes),
// pooled, so each dish weighs by its parsed recipes: per proto-action, how many of those recipes do it (sum of
// USES.n). The pool's size comes from compose_component_dishes.
// params: $atom, $exclude
MATCH (d:Dish)-[:HAS_COMPONENT]->(c:Component {key: $atom})
WHERE NOT d.name IN $exclude
MATCH (d)-[u:USES]->(a:ProtoAction)
RETURN a.key AS action, sum(u.n) AS recipes
ORDER BY action
