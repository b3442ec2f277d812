// Dishes with at least one parsed recipe (those that can get USES frequencies), with their recipe count.
// params: (none)
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true
RETURN d.name AS dish, count(r) AS recipes
ORDER BY dish
