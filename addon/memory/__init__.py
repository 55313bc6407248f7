"""Long-term memory: what the agent learns from conversations, keeps, merges and lets decay."""
