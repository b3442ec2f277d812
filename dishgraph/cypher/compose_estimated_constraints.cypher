// example: {"dishes": ["白灼菜心"], "source": "estimated"}
// Order constraints estimated from the recipes of the given dishes (one source), with their dish: the
// constraints a composed target inherits from the dishes it is composed of.
// params: $dishes, $source
MATCH (c:ProtoAction)-[m:MUST_PRECEDE]->(e:ProtoAction)
WHERE m.dish IN $dishes AND m.source = $source
RETURN m.dish AS dish, c.key AS cause, e.key AS effect, m.ate AS ate
ORDER BY dish, cause, effect
