// Parsed steps of the base recipes of every dish pair (the CRG instances), one row per step (a recipe
// without actions gives one row with null step fields), so evaluation reads base parses from the graph:
// everything an Action holds, surface ingredient/tool forms and sentence included (null on steps written
// before those properties existed; graph_cache then guesses the forms back).
// params: (none)
MATCH (p:DishPair)-[:BASE]->(d:Dish)
WITH DISTINCT d
MATCH (d)-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true
OPTIONAL MATCH (r)-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN r.id AS recipe, r.text AS text, s.pos AS pos, s.phrase AS phrase, s.verb AS verb, s.start AS start,
       s.`end` AS stop, s.inherited AS inherited, s.clause AS clause, a.key AS action,
       s.ingredient_forms AS ingredient_forms, s.tool_forms AS tool_forms, s.sentence AS sentence
