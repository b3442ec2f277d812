// A dish pair's pivot actions side by side: one row per action with its mined, typed, composed, annotated and
// released kind and the base/target frequencies (for the Neo4j Browser guide and `dishgraph pivots show`).
// params: $base, $target
MATCH (p:DishPair {base: $base, target: $target})-[e:PIVOT]->(a:ProtoAction)
WITH a,
     max(CASE WHEN e.source = 'mined' THEN e.kind ELSE NULL END) AS mined,
     max(CASE WHEN e.source = 'typed' THEN e.kind ELSE NULL END) AS typed,
     max(CASE WHEN e.source = 'composed' THEN e.kind ELSE NULL END) AS composed,
     max(CASE WHEN e.source = 'annotated' THEN e.kind ELSE NULL END) AS annotated,
     max(CASE WHEN e.source = 'crg-release' THEN e.kind ELSE NULL END) AS release,
     max(e.fb) AS fb, max(e.ft) AS ft, max(e.votes) AS votes
RETURN a.key AS action, a.verb AS verb, a.ingredients AS ingredients, a.tools AS tools,
       mined, typed, composed, annotated, release, fb, ft, votes
ORDER BY action
