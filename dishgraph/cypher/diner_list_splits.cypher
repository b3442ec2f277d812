// Every stored split with its figures.
// params: (none)
MATCH (s:Split)
RETURN s.name AS name, s.divergence AS divergence, s.atom_divergence AS atom_divergence, s.seed AS seed,
       s.ratio AS ratio
ORDER BY name
