// Mine a pair's pivot actions from USES frequencies (CRG 4.2), fb/ft = base/target frequency (absent USES = 0):
// remove if fb > alpha*ft and ft < tau_r; insert if ft > alpha*fb and ft > tau_i; manual if either ratio holds
// but its threshold fails. Actions used by only one dish of the pair get 0 for the other through the sums.
// Unless $all_actions, only culinary proto-actions (typed reading; null: not judged) become pivots.
// params: $pair, $alpha, $tau_r, $tau_i, $source, $all_actions
MATCH (p:DishPair {key: $pair})-[:BASE]->(b:Dish), (p)-[:TARGET]->(t:Dish)
MATCH (d:Dish)-[u:USES]->(a:ProtoAction)
WHERE (d.name = b.name OR d.name = t.name) AND ($all_actions OR a.culinary IS NULL OR a.culinary)
WITH p, a, sum(CASE WHEN d.name = b.name THEN u.freq ELSE 0.0 END) AS fb,
     sum(CASE WHEN d.name = t.name THEN u.freq ELSE 0.0 END) AS ft
WITH p, a, fb, ft,
     CASE WHEN fb > $alpha * ft AND ft < $tau_r THEN 'remove'
          WHEN ft > $alpha * fb AND ft > $tau_i THEN 'insert'
          WHEN fb > $alpha * ft OR ft > $alpha * fb THEN 'manual'
          ELSE NULL END AS kind
WHERE kind IS NOT NULL
MERGE (p)-[e:PIVOT {kind: kind, source: $source}]->(a)
SET e.fb = fb, e.ft = ft
RETURN a.key AS action, kind, fb, ft
ORDER BY kind, action
