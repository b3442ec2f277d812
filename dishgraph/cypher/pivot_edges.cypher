// A pair's pivot edges of every source: action, kind, source, frequencies, annotation votes.
// params: $pair
MATCH (p:DishPair {key: $pair})-[e:PIVOT]->(a:ProtoAction)
RETURN a.key AS action, a.verb AS verb, a.ingredients AS ingredients, a.tools AS tools,
       e.kind AS kind, e.source AS source, e.fb AS fb, e.ft AS ft, e.votes AS votes
ORDER BY source, kind, action
