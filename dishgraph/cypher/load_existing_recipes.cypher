// example: {"ids": ["crg:0000000000000000"]}
// Which of these recipe ids exist, and whether each is linked to its dish: the delta check of a bulk load.
// params: $ids
UNWIND $ids AS id
MATCH (x:Recipe {id: id})
OPTIONAL MATCH (d:Dish)-[:HAS_RECIPE]->(x)
RETURN x.id AS id, count(d) AS linked
