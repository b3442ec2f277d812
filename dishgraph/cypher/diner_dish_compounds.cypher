// Compounds of one dish with their sizes.
// params: $dish
MATCH (d:Dish {name: $dish})-[:HAS_COMPOUND]->(k:Compound)
RETURN k.key AS key, k.size AS size
ORDER BY size, key
