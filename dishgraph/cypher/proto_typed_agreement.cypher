// Per proto-action: its steps, those the typed reading read, and those it reads as the same cooking step
// on foods (culinary, and the typed key equals the CRG key).
// params: (none)
MATCH (s:Step)-[:INSTANCE_OF]->(a:ProtoAction)
RETURN a.key AS key, count(s) AS n,
       sum(CASE WHEN s.typed_action IS NOT NULL AND s.typed_action <> "" THEN 1 ELSE 0 END) AS n_read,
       sum(CASE WHEN s.culinary AND s.typed_action = a.key THEN 1 ELSE 0 END) AS n_agree
