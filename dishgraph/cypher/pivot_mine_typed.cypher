// Mine a pair's pivots from the typed reading's frequencies (TYPED_USES), the rule of pivot_mine (CRG 4.2):
// remove if fb > alpha*ft and ft < tau_r; insert if ft > alpha*fb and ft > tau_i; manual if either ratio holds
// but its threshold fails. Keys are typed keys (切|洋葱| for 切丝 after 洋葱洗净), stored as PIVOT {source}.
// params: $pair, $alpha, $tau_r, $tau_i, $source
MATCH (p:DishPair {key: $pair})-[:BASE]->(b:Dish), (p)-[:TARGET]->(t:Dish)
MATCH (d:Dish)-[u:TYPED_USES]->(a:ProtoAction)
WHERE d.name = b.name OR d.name = t.name
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
