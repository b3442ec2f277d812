// Dishes whose USES frequencies do not match their parsed recipes: recipes with actions but no USES edge, or
// USES edges counted over another number of recipes (recipes were added since they were materialized). A dish
// whose recipes yield no action has no USES edge to count and is not stale.
// params: (none)
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true
WITH d, count(r) AS recipes, sum(CASE WHEN r.n_actions > 0 THEN 1 ELSE 0 END) AS with_actions
OPTIONAL MATCH (d)-[u:USES]->(:ProtoAction)
WITH d, recipes, with_actions, min(u.total) AS lo, max(u.total) AS hi
WHERE (lo IS NULL AND with_actions > 0) OR lo <> recipes OR hi <> recipes
RETURN d.name AS dish, recipes
ORDER BY dish
