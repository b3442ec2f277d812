// Remove one action's pivot edges of one source for a pair (a re-import replaces earlier decisions).
// params: $pair, $key, $source
MATCH (p:DishPair {key: $pair})-[e:PIVOT]->(a:ProtoAction {key: $key})
WHERE e.source = $source
DELETE e
