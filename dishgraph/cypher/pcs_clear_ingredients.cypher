// Drop the ingredient lines of recipes about to be (re)loaded (their FROM_INGREDIENT edges go with them).
// params: $rows [{id}]
UNWIND $rows AS r
MATCH (i:IngredientLine)
WHERE i.recipe = r.id
DETACH DELETE i
