// example: {"ids": ["crg:0000000000000000"]}
// Which of these recipe ids exist, the line each was first loaded from, and whether each is linked to its
// dish: the delta check of a bulk load, and how a corpus ingest tells a duplicate from a re-run.
// params: $ids
UNWIND $ids AS id
MATCH (x:Recipe {id: id})
OPTIONAL MATCH (d:Dish)-[:HAS_RECIPE]->(x)
RETURN x.id AS id, x.line AS line, count(d) AS linked
