"""The migrate engine: the pure core (migrate_source, pipeline) and the file layer around it."""
