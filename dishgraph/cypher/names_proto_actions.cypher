// Every proto-action key in the graph: the candidates `knowledge.names` suggests from for an unknown action.
// params: (none)
MATCH (a:ProtoAction)
RETURN a.key AS key
ORDER BY key
