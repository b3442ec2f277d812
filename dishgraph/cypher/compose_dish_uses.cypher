// example: {"dish": "白灼秋葵", "top": 20}
// A composed dish's estimated actions by frequency (most first), at most $top rows.
// params: $dish, $top
MATCH (t:Dish {name: $dish})-[u:COMPOSED_USES]->(a:ProtoAction)
RETURN a.key AS action, a.verb AS verb, a.ingredients AS ingredients, a.tools AS tools, u.freq AS freq,
       u.weight AS weight
ORDER BY freq DESC, action
LIMIT $top
