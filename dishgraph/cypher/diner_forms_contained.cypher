// Test dishes whose component set lies inside some training dish's, with the smallest such training
// dish's size (container = n: Seen, the same atoms as a training name; container > n: Subset of one).
// (WITH after each relationship-property filter: see diner_forms_test_sizes.)
// params: $split
MATCH (s:Split {name: $split})<-[i:IN_SPLIT]-(t:Dish)
WHERE i.part = 'test'
WITH s, t
MATCH (t)-[:HAS_COMPONENT]->(c:Component)
WITH s, t, count(DISTINCT c) AS n
MATCH (t)-[:HAS_COMPONENT]->(c:Component)<-[:HAS_COMPONENT]-(r:Dish)
WITH s, t, n, r, count(DISTINCT c) AS shared
WHERE shared = n
MATCH (r)-[j:IN_SPLIT]->(s)
WHERE j.part = 'train'
WITH t, n, r
MATCH (r)-[:HAS_COMPONENT]->(rc:Component)
WITH t, n, r, count(DISTINCT rc) AS nr
RETURN t.name AS dish, n, min(nr) AS container
ORDER BY dish
