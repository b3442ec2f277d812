// example: {"dish": "番茄炒蛋", "key": "切|番茄|", "limit": 3}
// Where a dish's recipes do a typed action: the cooking steps read as $key, each with its phrase and the recipe
// text, first recipes first (what a reader checks a shown action against).
// params: $dish, $key, $limit
MATCH (:Dish {name: $dish})-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(s:Step)
WHERE s.culinary = true AND s.typed_action = $key
RETURN r.id AS recipe, r.text AS text, s.phrase AS phrase, s.`start` AS span_start, s.`end` AS span_end, s.foods AS foods
ORDER BY recipe, s.pos
LIMIT $limit
