// A dish pair with the number of parsed recipes of its base and target (mining needs both).
// params: $pair
MATCH (p:DishPair {key: $pair})-[:BASE]->(b:Dish), (p)-[:TARGET]->(t:Dish)
OPTIONAL MATCH (b)-[:HAS_RECIPE]->(rb:Recipe)
WHERE rb.parsed = true
WITH p, b, t, count(rb) AS base_recipes
OPTIONAL MATCH (t)-[:HAS_RECIPE]->(rt:Recipe)
WHERE rt.parsed = true
RETURN p.key AS pair, b.name AS base, t.name AS target, p.change_kind AS change_kind,
       p.change_from AS change_from, p.change_to AS change_to, base_recipes, count(rt) AS target_recipes
