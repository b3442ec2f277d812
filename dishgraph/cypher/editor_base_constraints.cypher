// example: {"dish": "白灼菜心", "source": "estimated"}
// One dish's order constraints of one source only (the fair graph editor reads the constraints estimated from
// the base dish's own recipes, never the released ones of the target dish).
// params: $dish, $source
MATCH (c:ProtoAction)-[m:MUST_PRECEDE]->(e:ProtoAction)
WHERE m.dish = $dish AND m.source = $source
RETURN c.key AS cause, e.key AS effect
ORDER BY cause, effect
