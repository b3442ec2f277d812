// Whether uses_counts has any row for these dishes (a parsed recipe with a step of a proto-action). Asked before
// the bulk write of their USES: a COPY from a subquery with no rows into a non-empty table crashes LadybugDB 0.22
// (segfault, seen when a pair's target has no recipes).
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)-[:HAS_STEP]->(:Step)-[:INSTANCE_OF]->(:ProtoAction)
WHERE d.name IN $dishes AND r.parsed = true
RETURN d.name AS dish
LIMIT 1
