// example: {"rows": [{"pair": "白灼菜心->白灼秋葵", "key": "切|洋葱|", "kind": "insert", "source": "composed", "fb": 0.0, "ft": 0.3}]}
// Write a pair's composed pivots chosen in Python (the insert ranker's choice beside the rule's removals).
// params: $rows [{pair, key, kind, source, fb, ft}]
UNWIND $rows AS r
MATCH (p:DishPair {key: r.pair}), (a:ProtoAction {key: r.key})
MERGE (p)-[e:PIVOT {kind: r.kind, source: r.source}]->(a)
SET e.fb = r.fb, e.ft = r.ft
