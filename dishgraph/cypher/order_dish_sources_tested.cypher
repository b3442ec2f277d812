// example: {"dishes": ["白灼菜心", "*"], "source": "tested"}
// Whether some dishes (and "*", the global level) have constraints of one source: one row if any.
// params: $dishes, $source
MATCH (:ProtoAction)-[m:MUST_PRECEDE]->(:ProtoAction)
WHERE m.source = $source AND m.dish IN $dishes
RETURN m.dish AS dish
LIMIT 1
