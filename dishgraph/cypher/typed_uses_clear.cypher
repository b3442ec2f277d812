// Remove the TYPED_USES frequency edges of the given dishes (before recomputing them).
// params: $dishes
MATCH (d:Dish)-[u:TYPED_USES]->(:ProtoAction)
WHERE d.name IN $dishes
DELETE u
