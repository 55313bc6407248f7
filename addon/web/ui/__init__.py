"""The web UI served through Home Assistant's ingress: server-rendered pages, a little script."""
