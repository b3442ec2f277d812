// example: {"keys": ["ingredient:菜心", "verb:切"]}
// The classes of glossary surface forms (keys kind:form): an action written with a surface form (切|菜心|)
// is named by its class form (切|油菜|) in the graph, so an unknown action is checked against them.
// params: $keys
UNWIND $keys AS k
MATCH (f:SurfaceForm {key: k})-[:FORM_OF]->(c)
RETURN f.kind AS kind, f.form AS form, c.name AS class
ORDER BY kind, form, class
