// Drop the HAS_COMPONENT links of the given dishes (before re-parsing them with another glossary).
// params: $rows [{name}]
UNWIND $rows AS r
MATCH (d:Dish {name: r.name})-[h:HAS_COMPONENT]->(:Component)
DELETE h
