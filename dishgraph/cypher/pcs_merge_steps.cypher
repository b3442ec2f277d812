// Upsert PCS steps (one per table row) and attach them to their recipe.
// params: $rows [{id, recipe, pos, instruction, action}]
UNWIND $rows AS r
MATCH (x:Recipe {id: r.recipe})
MERGE (s:Step {id: r.id})
SET s.recipe = r.recipe, s.pos = r.pos, s.instruction = r.instruction, s.action = r.action
MERGE (x)-[:HAS_STEP]->(s)
