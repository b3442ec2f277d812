// example: {"base": "白灼菜心", "keys": ["淋|蔬菜|", "加入|盐|"]}
// How many recipes of dishes other than the base do each given proto-action (sum of USES.n): the background
// frequency the graph editor contrasts the base dish's habits with.
// params: $base, $keys
MATCH (d:Dish)-[u:USES]->(a:ProtoAction)
WHERE a.key IN $keys AND d.name <> $base
RETURN a.key AS action, sum(u.n) AS recipes
ORDER BY action
