// One dish at a glance: who named it, and its recipes per source (parsed ones counted apart).
// params: $dish
MATCH (d:Dish {name: $dish})
OPTIONAL MATCH (d)-[:HAS_RECIPE]->(r:Recipe)
RETURN d.source AS dish_source, r.source AS recipe_source, count(r) AS recipes,
       sum(CASE WHEN r.parsed THEN 1 ELSE 0 END) AS parsed
ORDER BY recipes DESC, recipe_source
