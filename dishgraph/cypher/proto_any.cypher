// One proto-action key if the graph has any: an ingest into a graph with none settles the culinary flags
// from its own counts (pipeline.parse_and_load) instead of reading every step back.
// params: (none)
MATCH (a:ProtoAction)
RETURN a.key AS key
LIMIT 1
