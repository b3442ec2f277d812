// Upsert recipe-scoped comestibles (id = recipe id :: name, versioned when a name is produced again).
// params: $rows [{id, name, recipe}]
UNWIND $rows AS r
MERGE (c:Comestible {id: r.id})
SET c.name = r.name, c.recipe = r.recipe
