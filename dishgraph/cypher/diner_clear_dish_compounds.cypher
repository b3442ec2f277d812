// Drop the HAS_COMPOUND links of the given dishes (before re-parsing them with another glossary).
// params: $rows [{name}]
UNWIND $rows AS r
MATCH (d:Dish {name: r.name})-[h:HAS_COMPOUND]->(:Compound)
DELETE h
