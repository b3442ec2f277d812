// Upsert parsed steps (one per action occurrence), attach them to their recipe and proto-action.
// params: $rows [{id, recipe, pos, phrase, verb, start, end, inherited, clause, action, ingredient_forms,
//                  tool_forms, sentence, culinary, foods, heat, duration, shape, typed_action, typed_classes}]
// One MATCH per node (Ladybug's comma form `MATCH (x {..}), (a {..})` is far slower).
UNWIND $rows AS r
MERGE (s:Step {id: r.id})
SET s.recipe = r.recipe, s.pos = r.pos, s.phrase = r.phrase, s.verb = r.verb, s.start = r.start,
    s.`end` = r.`end`, s.inherited = r.inherited, s.clause = r.clause, s.action = r.action,
    s.ingredient_forms = r.ingredient_forms, s.tool_forms = r.tool_forms, s.sentence = r.sentence,
    s.culinary = r.culinary, s.foods = r.foods, s.heat = r.heat, s.duration = r.duration, s.shape = r.shape,
    s.typed_action = r.typed_action, s.typed_classes = r.typed_classes
WITH s, r
MATCH (x:Recipe {id: r.recipe})
MERGE (x)-[:HAS_STEP]->(s)
WITH s, r
MATCH (a:ProtoAction {key: r.action})
MERGE (s)-[:INSTANCE_OF]->(a)
