// Drop the comestibles of recipes about to be (re)loaded, so an edited PCS table leaves no stale flow.
// params: $rows [{id}]
UNWIND $rows AS r
MATCH (c:Comestible)
WHERE c.recipe = r.id
DETACH DELETE c
