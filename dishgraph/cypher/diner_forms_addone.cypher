// AddOne: test dishes of >= 3 components that are a training dish's name plus one more component.
// (WITH after each relationship-property filter: see diner_forms_test_sizes.)
// params: $split
MATCH (s:Split {name: $split})<-[i:IN_SPLIT]-(t:Dish)
WHERE i.part = 'test'
WITH s, t
MATCH (t)-[:HAS_COMPONENT]->(c:Component)
WITH s, t, count(DISTINCT c) AS n
WHERE n >= 3
MATCH (t)-[:HAS_COMPONENT]->(c:Component)<-[:HAS_COMPONENT]-(r:Dish)
WITH s, t, n, r, count(DISTINCT c) AS shared
WHERE shared = n - 1
MATCH (r)-[j:IN_SPLIT]->(s)
WHERE j.part = 'train'
WITH t, n, r
MATCH (r)-[:HAS_COMPONENT]->(rc:Component)
WITH t, n, r, count(DISTINCT rc) AS nr
WHERE nr = n - 1
RETURN t.name AS dish, n, count(DISTINCT r) AS bases
ORDER BY dish
