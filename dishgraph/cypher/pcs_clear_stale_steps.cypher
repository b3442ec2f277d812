// Drop steps beyond a recipe's new length (a re-ingested PCS table got shorter).
// params: $rows [{id, n}]
UNWIND $rows AS r
MATCH (s:Step)
WHERE s.recipe = r.id AND s.pos >= r.n
DETACH DELETE s
