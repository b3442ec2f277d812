// What became of an ingredient step by step: every comestible a raw comestible of a PCS recipe went into,
// with the step that made it, in step order.
// params: $recipe, $comestible
// example: {"recipe": "pcs:b1e0a1c0f5", "comestible": "brie"}
MATCH (c:Comestible {recipe: $recipe, name: $comestible})
WHERE NOT EXISTS { MATCH (:Step)-[:OUTPUT]->(c) }
MATCH (c)-[:FEEDS*1..30]->(d:Comestible)<-[:OUTPUT]-(s:Step)
RETURN DISTINCT s.pos AS pos, s.action AS action, d.name AS became, s.instruction AS instruction
ORDER BY pos
