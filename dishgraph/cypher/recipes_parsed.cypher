// Recipes in the graph and how many are parsed (the main job's checkpoint).
// params: (none)
MATCH (x:Recipe)
RETURN count(x) AS recipes, sum(CASE WHEN x.parsed = true THEN 1 ELSE 0 END) AS parsed
