// Glossary surface forms already linked to their class, as (form key, class name): the delta check that lets a
// re-ingest skip the glossary rows already there (MERGEing all of them again took ~1.3 s per ingest).
// params: (none)
MATCH (f:SurfaceForm)-[:FORM_OF]->(c)
RETURN f.key AS key, c.name AS cls
