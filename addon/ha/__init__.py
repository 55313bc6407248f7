"""The link to Home Assistant Core: WebSocket and REST client, lifecycle, live home sync."""
