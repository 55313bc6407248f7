"""The context selection for large homes: the overview, the summary and a request's entities."""
