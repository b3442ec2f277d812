// Checkpoint: a recipe whose steps are all loaded is marked parsed (re-runs skip it).
// params: $rows [{id, n}]
UNWIND $rows AS r
MATCH (x:Recipe {id: r.id})
SET x.parsed = true, x.n_actions = r.n
