// Every proto-action key with its culinary flag (null where none was set).
// params: (none)
MATCH (a:ProtoAction)
RETURN a.key AS key, a.culinary AS culinary
