// example: {"dishes": ["白灼秋葵"], "recipes": 13345}
// Composed knowledge that no new recipe can change (none of them joins its sources) is current as of $recipes
// parsed recipes: recomposing it would give the same edges.
// params: $dishes, $recipes
MATCH (t:Dish)-[u:COMPOSED_USES]->(:ProtoAction)
WHERE t.name IN $dishes
SET u.corpus_recipes = $recipes
