"""Long-term memory: what the agent learns about the home and its people, and recall of it."""
