// example: {"dishes": ["白灼秋葵"]}
// Drop the composed knowledge of the given target dishes (COMPOSED_USES and COMPOSED_FROM) before it is
// composed again, so an action no longer composed leaves no stale frequency.
// params: $dishes
MATCH (t:Dish)-[u:COMPOSED_USES|COMPOSED_FROM]->()
WHERE t.name IN $dishes
DELETE u
