// Recipes per source file (provenance), parsed or not: which corpora the graph holds.
// params: (none)
MATCH (r:Recipe)
RETURN r.source AS source, count(r) AS recipes
ORDER BY source
