// Upsert recipes with their dish (created if missing); parsed/n_actions are only set on creation.
// params: $rows [{id, dish, text, source, line, parsed, n_actions, split, annotator, original}]
UNWIND $rows AS r
MERGE (d:Dish {name: r.dish})
ON CREATE SET d.source = r.source
MERGE (x:Recipe {id: r.id})
ON CREATE SET x.parsed = r.parsed, x.n_actions = r.n_actions
SET x.dish = r.dish, x.text = r.text, x.source = r.source, x.line = r.line, x.split = r.split,
    x.annotator = r.annotator, x.original = r.original
MERGE (d)-[:HAS_RECIPE]->(x)
