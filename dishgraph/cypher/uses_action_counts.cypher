// How many actions each of these dishes has a USES edge to (what materialize_uses reports per dish).
// params: $dishes
MATCH (d:Dish)-[u:USES]->(:ProtoAction)
WHERE d.name IN $dishes
RETURN d.name AS dish, count(u) AS actions
