// Fewest training-name parts that rebuild each test name: up to two seen compounds (sets of >= 2 of its
// atoms that some training dish also has) plus single atoms for the rest; cover = min over (k1, k2) of
// parts + uncovered atoms. Exact for names of up to 5 components; dishes absent here have cover = n.
// (WITH after each relationship-property filter: see diner_forms_test_sizes.)
// params: $split
MATCH (s:Split {name: $split})<-[i:IN_SPLIT]-(t:Dish)
WHERE i.part = 'test'
WITH s, t
MATCH (t)-[:HAS_COMPONENT]->(c:Component)
WITH s, t, count(DISTINCT c) AS n
MATCH (t)-[:HAS_COMPOUND]->(k:Compound)<-[:HAS_COMPOUND]-(r:Dish)
WITH s, t, n, k, r
MATCH (r)-[j:IN_SPLIT]->(s)
WHERE j.part = 'train'
WITH t, n, collect(DISTINCT k.key) AS seen
UNWIND seen AS key1
UNWIND seen AS key2
MATCH (t)-[:HAS_COMPONENT]->(c:Component), (k1:Compound {key: key1}), (k2:Compound {key: key2})
OPTIONAL MATCH (k1)-[p1:PART]->(c)
OPTIONAL MATCH (k2)-[p2:PART]->(c)
WITH t, n, key1, key2, count(DISTINCT CASE WHEN p1 IS NULL AND p2 IS NULL THEN NULL ELSE c.key END) AS covered
WITH t, n, min(CASE WHEN key1 = key2 THEN 1 ELSE 2 END + n - covered) AS cover
RETURN t.name AS dish, n, cover
ORDER BY dish
