// Remove a pair's pivot edges of one source (e.g. "mined") before re-mining them.
// params: $pair, $source
MATCH (p:DishPair {key: $pair})-[e:PIVOT]->(:ProtoAction)
WHERE e.source = $source
DELETE e
