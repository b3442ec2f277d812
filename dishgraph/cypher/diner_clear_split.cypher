// Remove every dish's membership in a split (before storing a new version under the same name).
// params: $split
MATCH (:Dish)-[i:IN_SPLIT]->(s:Split {name: $split})
DELETE i
