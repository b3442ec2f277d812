// Upsert a PCS recipe's Recipe1M ingredient lines and attach them to it.
// params: $rows [{id, recipe, pos, text}]
UNWIND $rows AS r
MATCH (x:Recipe {id: r.recipe})
MERGE (i:IngredientLine {id: r.id})
SET i.recipe = r.recipe, i.pos = r.pos, i.text = r.text
MERGE (x)-[:HAS_INGREDIENT]->(i)
