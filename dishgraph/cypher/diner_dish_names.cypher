// Every dish name in the graph, sorted.
// params: (none)
MATCH (d:Dish)
RETURN d.name AS name
ORDER BY name
