// Create recipes the loader's delta check found absent, with their HAS_RECIPE edge (the dish must exist).
// params: $rows [{id, dish, text, source, line}]
// Idempotent only behind that check (load_existing_recipes); half-written recipes go through load_recipes.
UNWIND $rows AS r
MATCH (d:Dish {name: r.dish})
CREATE (d)-[:HAS_RECIPE]->(x:Recipe {id: r.id, dish: r.dish, text: r.text, source: r.source, line: r.line,
                                     parsed: false, n_actions: 0})
