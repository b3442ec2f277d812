// example: {"dish": "白灼秋葵"}
// Where a composed dish's knowledge came from: every contributing dish with its role, component and weight.
// params: $dish
MATCH (t:Dish {name: $dish})-[e:COMPOSED_FROM]->(d:Dish)
RETURN e.role AS role, e.atom AS atom, d.name AS dish, e.recipes AS recipes, e.weight AS weight
ORDER BY role, weight DESC, dish
