// Record annotation outcomes: a majority decision becomes an annotated pivot (kind remove|insert, or
// "none" for a rejected candidate) with the vote counts (JSON) on the edge.
// params: $rows [{pair, key, kind, source, fb, ft, votes}]
UNWIND $rows AS r
MATCH (p:DishPair {key: r.pair}), (a:ProtoAction {key: r.key})
MERGE (p)-[e:PIVOT {kind: r.kind, source: r.source}]->(a)
SET e.fb = r.fb, e.ft = r.ft, e.votes = r.votes
