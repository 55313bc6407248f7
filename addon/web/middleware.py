"""The one error middleware: domain errors become clear HTTP answers, the rest a logged 500."""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp.typedefs import Handler

from addon.errors import ConfigError, CustomToolInvalid, NotFoundError, ToolError

_LOGGER = logging.getLogger(__name__)


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Translate errors once, at the edge, into JSON with a message a user can act on."""
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except CustomToolInvalid as err:
        # Every problem with its field, so an editor marks each line concerned at once.
        problems = [{"field": path, "message": message} for path, message in err.problems]
        body = {"error": "invalid_definition", "message": str(err), "problems": problems}
        if problems:
            body["field"] = problems[0]["field"]
        return web.json_response(body, status=422)
    except NotFoundError as err:
        return web.json_response({"error": "not_found", "message": str(err)}, status=404)
    except (ConfigError, ToolError) as err:
        return web.json_response({"error": "bad_request", "message": str(err)}, status=400)
    except Exception:
        _LOGGER.exception("Unhandled error serving %s %s", request.method, request.path)
        return web.json_response(
            {"error": "internal", "message": "Internal error; the add-on log has the details."},
            status=500,
        )
