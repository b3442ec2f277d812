// Components of every parsed dish, in name order.
// params: (none)
MATCH (d:Dish)-[h:HAS_COMPONENT]->(c:Component)
RETURN d.name AS dish, h.pos AS pos, h.surface AS surface, c.key AS key, c.type AS type, c.cluster AS cluster
ORDER BY dish, pos
