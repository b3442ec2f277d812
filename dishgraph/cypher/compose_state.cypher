// Composed dishes and the parsed-recipe count of the graph each was composed against (staleness: the graph
// has gained or lost parsed recipes since).
// params: (none)
MATCH (t:Dish)-[u:COMPOSED_USES]->(:ProtoAction)
RETURN t.name AS dish, max(u.corpus_recipes) AS corpus_recipes, count(u) AS actions
ORDER BY dish
