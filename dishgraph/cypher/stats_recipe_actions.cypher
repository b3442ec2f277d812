// Per recipe: number of steps (actions) and of inherited (omission-filled) actions.
// params: (none)
MATCH (x:Recipe)
OPTIONAL MATCH (x)-[:HAS_STEP]->(s:Step)
RETURN x.id AS id, count(s) AS steps, sum(CASE WHEN s.inherited THEN 1 ELSE 0 END) AS inherited
