// PCS recipes whose id is the one given or ends with $tail (":" and a table id without its source prefix).
// params: $id, $tail
// example: {"id": "b1e0a1c0f5", "tail": ":b1e0a1c0f5"}
MATCH (x:Recipe)
WHERE x.annotator IS NOT NULL AND (x.id = $id OR x.id ENDS WITH $tail)
RETURN x.id AS id
ORDER BY id
