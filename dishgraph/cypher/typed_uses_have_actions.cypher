// Whether typed_uses_counts has any row for these dishes (asked before its bulk write: a COPY from a subquery
// with no rows into a non-empty table crashes LadybugDB 0.22).
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(s:Step)
WHERE d.name IN $dishes AND r.parsed = true AND s.culinary = true AND s.typed_action CONTAINS '|'
RETURN d.name AS dish
LIMIT 1
