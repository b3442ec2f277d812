// PCS recipes and steps per release split and annotator (annotator 2: a second crowd worker's table).
// params: (none)
MATCH (x:Recipe)
WHERE x.annotator IS NOT NULL
OPTIONAL MATCH (x)-[:HAS_STEP]->(s:Step)
RETURN x.split AS split, x.annotator AS annotator, count(DISTINCT x) AS recipes, count(s) AS steps
ORDER BY split, annotator
