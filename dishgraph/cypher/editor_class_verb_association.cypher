// example: {"classes": ["油菜", "洋葱"]}
// How each verb class is applied to the given ingredient classes across ALL dishes (USES statistics): per
// (class, verb) the dishes using such a proto-action and the recipes doing so (sum of USES.n). The graph editor
// turns these into P(verb | class) to tell actions specific to the replaced ingredient from the new one's.
// params: $classes
MATCH (d:Dish)-[u:USES]->(a:ProtoAction)-[:INGREDIENT]->(c:IngredientClass)
WHERE c.name IN $classes
WITH d, u, a, c
MATCH (a)-[:VERB]->(v:VerbClass)
RETURN c.name AS cls, v.name AS verb, count(DISTINCT d) AS dishes, sum(u.n) AS uses
ORDER BY cls, verb
