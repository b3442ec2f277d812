// example: {"dishes": ["番茄炒蛋"]}
// The typed keys of each parsed recipe's cooking steps, for these dishes: what a rollup of foods to their
// categories counts (a recipe cutting 娃娃菜 and 菠菜 cuts a leafy vegetable once).
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(s:Step)
WHERE d.name IN $dishes AND r.parsed = true AND s.culinary = true AND s.typed_action CONTAINS '|'
RETURN d.name AS dish, r.id AS recipe, collect(DISTINCT s.typed_action) AS actions
ORDER BY dish, recipe
