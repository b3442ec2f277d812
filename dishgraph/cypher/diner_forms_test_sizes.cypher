// Test dishes of a split with the number n of distinct components of their names.
// (Each relationship-property filter is followed by WITH: LadybugDB 0.22 drops rows when such a filter
// feeds a further pattern in the same MATCH/WHERE once a table spans several node groups.)
// params: $split
MATCH (s:Split {name: $split})<-[i:IN_SPLIT]-(t:Dish)
WHERE i.part = 'test'
WITH t
MATCH (t)-[:HAS_COMPONENT]->(c:Component)
RETURN t.name AS dish, count(DISTINCT c) AS n
ORDER BY dish
