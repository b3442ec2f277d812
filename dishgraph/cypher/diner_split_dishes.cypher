// Dish names of a split with their part.
// params: $split
MATCH (d:Dish)-[i:IN_SPLIT]->(s:Split {name: $split})
RETURN i.part AS part, d.name AS dish
ORDER BY part, dish
