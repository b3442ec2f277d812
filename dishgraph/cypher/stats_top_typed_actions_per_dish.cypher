// Typed keys per dish by number of recipes with a cooking step read as them (most used first): what `stats`
// shows by default (切|洋葱| for 切丝 after 洋葱洗净, where the CRG key is 切|丝|).
// params: (none)
MATCH (d:Dish)-[:HAS_RECIPE]->(x:Recipe)-[:HAS_STEP]->(s:Step)
WHERE s.culinary = true AND s.typed_action CONTAINS '|'
RETURN d.name AS dish, s.typed_action AS action, count(DISTINCT x) AS recipes
ORDER BY dish, recipes DESC, action
