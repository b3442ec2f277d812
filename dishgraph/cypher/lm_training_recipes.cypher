// Recipes to train the recipe language model on, with their dish, in a stable order.
// params: (none)
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
RETURN d.name AS dish, r.text AS text, r.id AS id
ORDER BY r.id
