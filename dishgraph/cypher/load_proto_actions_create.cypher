// Create proto-actions the loader's delta check found absent (their edges follow; VERB last marks each complete).
// params: $rows [{key, verb, ingredients, tools}]
UNWIND $rows AS r
CREATE (a:ProtoAction {key: r.key, verb: r.verb, ingredients: r.ingredients, tools: r.tools})
