// Recipe ids of a split's dishes with their part.
// params: $split
MATCH (x:Recipe)<-[:HAS_RECIPE]-(d:Dish)-[i:IN_SPLIT]->(s:Split {name: $split})
RETURN i.part AS part, x.id AS recipe
ORDER BY part, recipe
