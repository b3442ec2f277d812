// Which of these dishes have no TYPED_USES edge at all (new dishes): their edges can be created without a MERGE.
// params: $dishes
UNWIND $dishes AS name
MATCH (d:Dish {name: name})
OPTIONAL MATCH (d)-[u:TYPED_USES]->(:ProtoAction)
WITH d, count(u) AS uses
WHERE uses = 0
RETURN d.name AS dish
