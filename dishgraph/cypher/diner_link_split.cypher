// Put dishes into a split's train or test part.
// params: $rows [{dish, part}], $split
UNWIND $rows AS r
MATCH (d:Dish {name: r.dish}), (s:Split {name: $split})
MERGE (d)-[i:IN_SPLIT]->(s)
SET i.part = r.part
