// The actions of a dish that take part in the most order constraints (as cause or effect), from one
// source ("" = all): examples to look up when the action asked about has none.
// params: $dish, $source, $limit
// example: {"dish": "白灼菜心", "source": "", "limit": 5}
MATCH (c:ProtoAction)-[m:MUST_PRECEDE]->(e:ProtoAction)
WHERE m.dish = $dish AND ($source = "" OR m.source = $source)
UNWIND [c.key, e.key] AS action
RETURN action, count(*) AS constraints
ORDER BY constraints DESC, action
LIMIT $limit
