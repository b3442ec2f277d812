// An upper bound on the USES edges these dishes can get (the actions of their parsed recipes): the disk space a
// bulk write of them is checked against before it runs (the engine cannot survive a full disk).
// params: $dishes
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE d.name IN $dishes AND r.parsed = true
RETURN sum(r.n_actions) AS actions
