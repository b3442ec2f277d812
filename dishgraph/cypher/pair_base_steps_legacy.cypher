// pair_base_steps for a database written before Step.ingredient_forms / tool_forms / sentence existed and
// opened read-only (a read-write open adds the columns; a read-only one cannot): the same rows without
// them, so graph_cache guesses the surface forms back (and says so).
// params: (none)
MATCH (p:DishPair)-[:BASE]->(d:Dish)
WITH DISTINCT d
MATCH (d)-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true
OPTIONAL MATCH (r)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN r.id AS recipe, r.text AS text, s.pos AS pos, s.phrase AS phrase, s.verb AS verb, s.start AS start,
       s.`end` AS stop, s.inherited AS inherited, s.clause AS clause, a.key AS action
