// Which of the given proto-actions have no culinary flag yet (created by composition, never parsed).
// params: $keys
MATCH (a:ProtoAction)
WHERE a.key IN $keys AND a.culinary IS NULL
RETURN a.key AS key
