// A dish's recipes with their parsed action steps in recipe order (the Neo4j Browser guide's first slide):
// the base dish of the example pair, its first $limit recipes; a recipe without actions gives one row.
// params: $base, $limit
MATCH (:Dish {name: $base})-[:HAS_RECIPE]->(r:Recipe)
WITH r
ORDER BY r.id
LIMIT $limit
OPTIONAL MATCH (r)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN r.id AS recipe, s.pos AS pos, s.phrase AS phrase, a.key AS action, s.inherited AS inherited
ORDER BY recipe, pos
