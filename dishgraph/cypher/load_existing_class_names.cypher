// example: {}
// Every verb, ingredient and tool class name there is (a few hundred rows): a bulk load writes the classes
// its proto-actions name only when one is missing, so a loaded glossary costs no logged write per batch.
MATCH (c:VerbClass) RETURN 'verb' AS kind, c.name AS name
UNION ALL
MATCH (c:IngredientClass) RETURN 'ingredient' AS kind, c.name AS name
UNION ALL
MATCH (c:ToolClass) RETURN 'tool' AS kind, c.name AS name
