// Upsert glossary surface forms (key = kind:form); classes are linked by load_glossary_<kind>_classes.
// params: $rows [{key, form, kind}]
UNWIND $rows AS r
MERGE (f:SurfaceForm {key: r.key})
SET f.form = r.form, f.kind = r.kind
