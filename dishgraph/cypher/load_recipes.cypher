// Upsert recipes (stable id = source + content hash) and attach them to their dish (which must exist).
// A recipe already there keeps its properties (first writer wins, as in the bulk COPY path).
// params: $rows [{id, dish, text, source, line}]
UNWIND $rows AS r
MERGE (x:Recipe {id: r.id})
ON CREATE SET x.parsed = false, x.n_actions = 0, x.dish = r.dish, x.text = r.text, x.source = r.source,
    x.line = r.line
WITH x, r
MATCH (d:Dish {name: r.dish})
MERGE (d)-[:HAS_RECIPE]->(x)
