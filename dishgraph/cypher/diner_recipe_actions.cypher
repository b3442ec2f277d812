// The action graph of each given recipe: its proto-actions in step order (graph recognizer features).
// params: $ids [recipe id]
UNWIND $ids AS rid
MATCH (r:Recipe {id: rid})-[:HAS_STEP]->(s:Step)-[:INSTANCE_OF]->(p:ProtoAction)
RETURN r.id AS recipe, s.pos AS pos, p.verb AS verb, p.ingredients AS ingredients, p.tools AS tools
ORDER BY recipe, pos
