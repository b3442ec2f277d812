// Dishes whose USES frequencies do not match their parsed recipes: parsed recipes but no USES edge, or USES
// edges counted over another number of recipes (recipes were added since they were materialized).
// params: (none)
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true
WITH d, count(r) AS recipes
OPTIONAL MATCH (d)-[u:USES]->(:ProtoAction)
WITH d, recipes, min(u.total) AS lo, max(u.total) AS hi
WHERE lo IS NULL OR lo <> recipes OR hi <> recipes
RETURN d.name AS dish, recipes
ORDER BY dish
