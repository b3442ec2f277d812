// Upsert a named TMCD split with its measured figures.
// params: $split, $divergence, $atom_divergence, $seed, $ratio
MERGE (s:Split {name: $split})
SET s.divergence = $divergence, s.atom_divergence = $atom_divergence, s.seed = $seed, s.ratio = $ratio
