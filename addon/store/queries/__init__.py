"""Read-side queries for the web UI: lists, details and aggregates, never writes."""
