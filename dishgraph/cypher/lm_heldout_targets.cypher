// Target dishes of the counterfactual pairs: the recipe LM must never see their recipes.
// params: (none)
MATCH (p:DishPair)-[:TARGET]->(d:Dish)
RETURN DISTINCT d.name AS name
