// Keys of the glossary surface forms already in the graph: those absent can be bulk-loaded, not MERGEd.
// params: (none)
MATCH (f:SurfaceForm)
RETURN f.key AS key
