// One split's stored figures and its part sizes.
// params: $split
MATCH (s:Split {name: $split})
OPTIONAL MATCH (d:Dish)-[i:IN_SPLIT]->(s)
RETURN s.name AS name, s.divergence AS divergence, s.atom_divergence AS atom_divergence, s.seed AS seed,
       s.ratio AS ratio, sum(CASE WHEN i.part = 'train' THEN 1 ELSE 0 END) AS n_train,
       sum(CASE WHEN i.part = 'test' THEN 1 ELSE 0 END) AS n_test
