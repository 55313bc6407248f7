"""Home Assistant's REST API, for the things the WebSocket API does not offer.

``GET /api/states/<entity_id>`` reads one entity's state on demand (the live executor checks an
action's effect with it); ``POST /api/intent/handle`` runs one of Home Assistant's intent
handlers (for a to-do list that takes items only through its intent);
``/api/config/automation/config/<id>`` creates and deletes an approved automation. It shares the
client's aiohttp session and token; failures become the same :mod:`addon.errors` exceptions as
WebSocket commands.
"""

from __future__ import annotations

import json

import aiohttp

from addon.errors import HomeAssistantCommandError, HomeAssistantUnavailableError
from addon.ha.protocol import excerpt
from addon.text import JsonValue


class RestApi:
    """Authenticated JSON requests under one base URL (``…/api``)."""

    def __init__(
        self, session: aiohttp.ClientSession, base_url: str, token: str, default_timeout: float
    ) -> None:
        self._session = session
        self._base_url = base_url.rstrip("/")
        self._token = token
        self._default_timeout = default_timeout

    async def post(self, path: str, payload: JsonValue, limit: float | None) -> JsonValue:
        """POST ``payload`` as JSON to ``path``; the answer as :meth:`get` gives it."""
        return await self._request("POST", path, payload, limit)

    async def delete(self, path: str, limit: float | None) -> JsonValue:
        """DELETE ``path``; the answer as :meth:`get` gives it."""
        return await self._request("DELETE", path, None, limit)

    async def get(self, path: str, limit: float | None) -> JsonValue:
        """GET ``path``; JSON answers are decoded, others returned as text (or None)."""
        return await self._request("GET", path, None, limit)

    async def _request(
        self, method: str, path: str, payload: JsonValue, limit: float | None
    ) -> JsonValue:
        """One request; a status outside 2xx, a timeout or a network failure raises."""
        url = f"{self._base_url}/{path.lstrip('/')}"
        limit = self._default_timeout if limit is None else limit
        try:
            async with self._session.request(
                method,
                url,
                json=payload,
                headers={"Authorization": f"Bearer {self._token}"},
                timeout=aiohttp.ClientTimeout(total=limit),
            ) as response:
                body = await response.text()
                if not 200 <= response.status < 300:
                    raise HomeAssistantCommandError(
                        f"http_{response.status}",
                        f"{method} {path} answered {response.status}: {excerpt(body)}",
                    )
                if response.content_type == "application/json" and body:
                    decoded: JsonValue = json.loads(body)
                    return decoded
                return body or None
        except TimeoutError:
            raise HomeAssistantUnavailableError(
                f"Home Assistant did not answer {method} {path} within {limit:g} s"
            ) from None
        except aiohttp.ClientError as err:
            raise HomeAssistantUnavailableError(f"{method} {path} failed: {err}") from err
