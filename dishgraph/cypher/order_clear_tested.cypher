// Remove the tested order constraints of some dishes (and "*", the global level, when listed).
// params: $dishes, $source
MATCH (:ProtoAction)-[m:MUST_PRECEDE]->(:ProtoAction)
WHERE m.source = $source AND m.dish IN $dishes
DELETE m
