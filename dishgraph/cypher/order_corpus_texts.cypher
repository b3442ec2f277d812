// example: {}
// The text of every parsed recipe and its number of actions: where in a recipe a sentence belongs is learned
// from the words of the corpus's sentences (the sentence-order reading of `order check`), beside the steps of
// order_corpus_steps; the model kept on disk is named by a digest of these rows.
// params: (none)
MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe)
WHERE r.parsed = true
RETURN r.id AS recipe, r.text AS text, r.n_actions AS n_actions
ORDER BY recipe
