"""Target matching: Assist's resolution of names, areas and kinds, ported from Home Assistant."""
