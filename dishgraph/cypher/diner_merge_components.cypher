// Upsert DiNeR component atoms (key = type:cluster).
// params: $rows [{key, type, cluster}]
UNWIND $rows AS r
MERGE (c:Component {key: r.key})
SET c.type = r.type, c.cluster = r.cluster
