// Store composed dish→action frequencies: (:Dish)-[:COMPOSED_USES {freq, weight, source, corpus_recipes}]->
// (:ProtoAction). freq is the estimated share of the dish's recipes doing the action; weight the total weight of
// the sources behind it; corpus_recipes the parsed recipes in the graph when it was composed (staleness check).
// params: $rows [{dish, action, freq, weight, source, corpus_recipes}]
UNWIND $rows AS r
MATCH (t:Dish {name: r.dish})
MATCH (a:ProtoAction {key: r.action})
MERGE (t)-[u:COMPOSED_USES]->(a)
SET u.freq = r.freq, u.weight = r.weight, u.source = r.source, u.corpus_recipes = r.corpus_recipes
