"""Long-term memory: what the agent learned about the home and its people, and recall of it."""
