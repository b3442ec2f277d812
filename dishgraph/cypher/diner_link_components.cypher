// Link a dish to the components of its name, keeping position and surface form.
// params: $rows [{dish, key, pos, surface}]
UNWIND $rows AS r
MATCH (d:Dish {name: r.dish}), (c:Component {key: r.key})
MERGE (d)-[h:HAS_COMPONENT {pos: r.pos}]->(c)
SET h.surface = r.surface
