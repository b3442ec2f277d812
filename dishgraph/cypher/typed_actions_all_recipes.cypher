// The typed keys of every parsed recipe's cooking steps, per dish: the rollups of `stats --by` and the typed
// composition of a pair's target (its pools by name component and by food) read them once.
// params: (none)
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(s:Step)
WHERE r.parsed = true AND s.culinary = true AND s.typed_action CONTAINS '|'
RETURN d.name AS dish, r.id AS recipe, collect(DISTINCT s.typed_action) AS actions
ORDER BY dish, recipe
