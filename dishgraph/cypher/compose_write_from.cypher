// Provenance of composed knowledge: (:Dish target)-[:COMPOSED_FROM {role, atom, weight, recipes}]->(:Dish) for
// every dish whose recipes went into the composition (role base | action | flavour | food | class | own).
// params: $rows [{target, dish, role, atom, weight, recipes}]
UNWIND $rows AS r
MATCH (t:Dish {name: r.target})
MATCH (d:Dish {name: r.dish})
MERGE (t)-[e:COMPOSED_FROM {role: r.role, atom: r.atom}]->(d)
SET e.weight = r.weight, e.recipes = r.recipes
