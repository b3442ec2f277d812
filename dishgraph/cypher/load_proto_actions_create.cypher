// Create proto-actions the loader's delta check found absent (their edges follow; VERB last marks each complete).
// culinary: the flag of the steps loaded with them, or null (loader.mark_culinary settles it).
// params: $rows [{key, verb, ingredients, tools, culinary}]
UNWIND $rows AS r
CREATE (a:ProtoAction {key: r.key, verb: r.verb, ingredients: r.ingredients, tools: r.tools, culinary: r.culinary})
