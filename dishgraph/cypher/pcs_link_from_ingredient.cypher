// A raw comestible (consumed before any step produced it) comes from an ingredient line of its recipe.
// params: $rows [{comestible, ingredient}]
UNWIND $rows AS r
MATCH (c:Comestible {id: r.comestible})
MATCH (i:IngredientLine {id: r.ingredient})
MERGE (c)-[:FROM_INGREDIENT]->(i)
