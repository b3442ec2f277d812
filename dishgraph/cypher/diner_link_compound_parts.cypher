// Link each compound to its component atoms.
// params: $rows [{compound, component}]
UNWIND $rows AS r
MATCH (k:Compound {key: r.compound}), (c:Component {key: r.component})
MERGE (k)-[:PART]->(c)
