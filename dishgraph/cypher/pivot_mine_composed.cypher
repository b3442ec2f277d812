// example: {"pair": "白灼菜心->白灼秋葵", "alpha": 5.0, "tau_r": 0.01, "tau_i": 0.1, "min_fb": 0.0, "source": "composed", "new_cls": "洋葱", "tau_new": 0.03, "all_actions": false}
// Mine a pair's pivots (CRG 4.2) from the base dish's corpus frequencies (USES) and the target's composed ones
// (COMPOSED_USES), the paper's rule as in pivot_mine, without the 'manual' kind (no annotator
// reviews a composed pair), plus $min_fb: a remove-pivot must be done by at least
// that share of the base dish's recipes (an action in one recipe of fifty is no habit of the dish), and a lower
// insert threshold $tau_new for what is done to the new ingredient alone (class $new_cls, no other ingredient,
// no tool): the base dish cannot do those, and the ingredient arrives with them.
// Unless $all_actions, only culinary proto-actions (typed reading; null: not judged) become pivots.
// params: $pair, $alpha, $tau_r, $tau_i, $min_fb, $source, $new_cls, $tau_new, $all_actions
MATCH (p:DishPair {key: $pair})-[:BASE]->(b:Dish), (p)-[:TARGET]->(t:Dish)
MATCH (d:Dish)-[u:USES|COMPOSED_USES]->(a:ProtoAction)
WHERE ((d.name = b.name AND u.source IS NULL) OR (d.name = t.name AND u.source = $source))
  AND ($all_actions OR a.culinary IS NULL OR a.culinary)
WITH p, a, sum(CASE WHEN d.name = b.name THEN u.freq ELSE 0.0 END) AS fb,
     sum(CASE WHEN d.name = t.name THEN u.freq ELSE 0.0 END) AS ft
WITH p, a, fb, ft,
     CASE WHEN fb > $alpha * ft AND ft < $tau_r AND fb >= $min_fb THEN 'remove'
          WHEN ft > $alpha * fb AND (ft > $tau_i OR (a.ingredients = [$new_cls] AND size(a.tools) = 0
                                                     AND ft > $tau_new)) THEN 'insert'
          ELSE NULL END AS kind
WHERE kind IS NOT NULL
MERGE (p)-[e:PIVOT {kind: kind, source: $source}]->(a)
SET e.fb = fb, e.ft = ft
RETURN a.key AS action, kind, fb, ft
ORDER BY kind, action
