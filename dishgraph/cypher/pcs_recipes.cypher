// The PCS recipes (recipes with an annotator) of one release split ("" = all), with title and step count.
// params: $split, $limit
// example: {"split": "", "limit": 5}
MATCH (x:Recipe)
WHERE x.annotator IS NOT NULL AND ($split = "" OR x.split = $split)
OPTIONAL MATCH (x)-[:HAS_STEP]->(s:Step)
RETURN x.id AS id, x.split AS split, x.annotator AS annotator, x.dish AS title, count(s) AS steps
ORDER BY split, id
LIMIT $limit
