// A dish's proto-actions by frequency (most used first), at least $min_freq, at most $top rows.
// params: $dish, $min_freq, $top
MATCH (d:Dish {name: $dish})-[u:USES]->(a:ProtoAction)
WHERE u.freq >= $min_freq
RETURN a.key AS action, a.verb AS verb, a.ingredients AS ingredients, a.tools AS tools,
       u.freq AS freq, u.n AS n, u.total AS total
ORDER BY freq DESC, action
LIMIT $top
