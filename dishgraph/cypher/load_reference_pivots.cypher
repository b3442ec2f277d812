// Reference pivot actions of a pair (e.g. the CRG release): (:DishPair)-[:PIVOT {kind, source}]->(:ProtoAction).
// params: $rows [{pair, key, kind, source}]
UNWIND $rows AS r
MATCH (p:DishPair {key: r.pair})
MATCH (a:ProtoAction {key: r.key})
MERGE (p)-[e:PIVOT {kind: r.kind, source: r.source}]->(a)
