// Which raw ingredients end up in a PCS recipe's final dish (the output of its last step that has one):
// every raw comestible (consumed before any step produced it) with a FEEDS path into it, and the
// Recipe1M ingredient line it comes from (null when no line shares a word with it).
// params: $recipe
// example: {"recipe": "pcs:b1e0a1c0f5"}
MATCH (x:Recipe {id: $recipe})-[:HAS_STEP]->(s:Step)-[:OUTPUT]->(f:Comestible)
WITH f, s.pos AS pos
ORDER BY pos DESC
LIMIT 1
MATCH (c:Comestible)-[:FEEDS*1..30]->(f)
WHERE NOT EXISTS { MATCH (:Step)-[:OUTPUT]->(c) }
OPTIONAL MATCH (c)-[:FROM_INGREDIENT]->(i:IngredientLine)
RETURN DISTINCT c.name AS comestible, i.text AS ingredient, f.name AS final_dish
ORDER BY comestible
