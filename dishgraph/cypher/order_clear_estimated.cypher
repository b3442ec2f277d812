// Remove a dish's order constraints of one source and confounder window (before re-estimating them).
// params: $dish, $source, $window
MATCH (:ProtoAction)-[m:MUST_PRECEDE]->(:ProtoAction)
WHERE m.dish = $dish AND m.source = $source AND m.window = $window
DELETE m
