"""``GET /health``: the watchdog's and the dashboard's view of every resource.

Anyone may ask whether the add-on is up (the watchdog and Docker's HEALTHCHECK have no
credentials); only a caller let in through ingress or with a token is told the version and each
component's detail, which name endpoints and errors an outsider has no business reading.
"""

from __future__ import annotations

from aiohttp import web

from addon import __version__, keys
from addon.web.access import ACCESS


async def health_view(request: web.Request) -> web.Response:
    """200 while the critical resources are up, 503 otherwise; details for known callers."""
    healthy, components = await request.app[keys.HEALTH].report()
    status = 200 if healthy else 503
    body: dict[str, object] = {"status": "ok" if healthy else "down"}
    if ACCESS in request:
        body["version"] = __version__
        body["components"] = {
            name: {"status": c.status, "detail": c.detail} for name, c in components.items()
        }
    return web.json_response(body, status=status)
