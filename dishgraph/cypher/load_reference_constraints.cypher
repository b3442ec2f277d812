// Reference cause->effect order constraints of a dish: (:ProtoAction)-[:MUST_PRECEDE {dish, source}]->(:ProtoAction).
// params: $rows [{cause, effect, dish, source}]
UNWIND $rows AS r
MATCH (a:ProtoAction {key: r.cause})
MATCH (b:ProtoAction {key: r.effect})
MERGE (a)-[e:MUST_PRECEDE {dish: r.dish, source: r.source}]->(b)
