"""``GET /health``: the watchdog's and the dashboard's view of every resource."""

from __future__ import annotations

from aiohttp import web

from addon import __version__, keys


async def health_view(request: web.Request) -> web.Response:
    """200 while the critical resources are up, 503 otherwise; details per component."""
    healthy, components = await request.app[keys.HEALTH].report()
    body = {
        "status": "ok" if healthy else "down",
        "version": __version__,
        "components": {
            name: {"status": c.status, "detail": c.detail} for name, c in components.items()
        },
    }
    return web.json_response(body, status=200 if healthy else 503)
