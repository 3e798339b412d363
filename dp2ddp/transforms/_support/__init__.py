"""Support code shared by the passes: the pass base class, metadata, qualified names, import
edits and node helpers. Not passes themselves."""
