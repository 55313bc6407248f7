"""MCP servers' tools for the agent: connect with the official client, list, call, keep watch."""
