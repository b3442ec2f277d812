// A dish's actions in the typed reading by frequency (TYPED_USES), most frequent first.
// params: $dish, $min_freq, $top
MATCH (d:Dish {name: $dish})-[u:TYPED_USES]->(a:ProtoAction)
WHERE u.freq >= $min_freq
RETURN a.key AS action, a.verb AS verb, a.ingredients AS ingredients, a.tools AS tools, u.freq AS freq, u.n AS n,
       u.total AS total
ORDER BY freq DESC, action
LIMIT $top
