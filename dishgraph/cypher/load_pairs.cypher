// Upsert counterfactual dish pairs and link them to their base and target dishes (which must exist).
// params: $rows [{key, base, target, change_from, change_to, change_kind}]
UNWIND $rows AS r
MERGE (p:DishPair {key: r.key})
SET p.base = r.base, p.target = r.target, p.change_from = r.change_from, p.change_to = r.change_to,
    p.change_kind = r.change_kind
WITH p, r
MATCH (b:Dish {name: r.base})
MERGE (p)-[:BASE]->(b)
WITH p, r
MATCH (t:Dish {name: r.target})
MERGE (p)-[:TARGET]->(t)
