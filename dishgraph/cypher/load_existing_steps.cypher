// example: {"ids": ["crg:0000000000000000#0"]}
// Which of these step ids exist already (left by an interrupted load): the delta check of a bulk load.
// params: $ids
UNWIND $ids AS id
MATCH (s:Step {id: id})
RETURN s.id AS id
