// Upsert tool classes by name (endpoints a bulk COPY of proto-action edges needs to exist).
// params: $rows [{name}]
UNWIND $rows AS r
MERGE (c:ToolClass {name: r.name})
