// example: {"dish": "白灼秋葵", "source": "composed"}
// Drop one dish's order constraints of one source (composed constraints are transferred again each time).
// params: $dish, $source
MATCH (:ProtoAction)-[m:MUST_PRECEDE]->(:ProtoAction)
WHERE m.dish = $dish AND m.source = $source
DELETE m
