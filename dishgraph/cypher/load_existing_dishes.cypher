// example: {"names": ["白灼菜心"]}
// Which of these dishes exist already: the delta check that lets a bulk load COPY only new dishes.
// params: $names
UNWIND $names AS n
MATCH (d:Dish {name: n})
RETURN d.name AS name
