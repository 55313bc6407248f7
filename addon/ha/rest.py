"""Home Assistant's REST API, for the one thing the WebSocket API does not offer.

``GET /api/states/<entity_id>`` reads one entity's state on demand (the live executor checks an
action's effect with it). It shares the client's aiohttp session and token; failures become the
same :mod:`addon.errors` exceptions as WebSocket commands.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from addon.errors import HomeAssistantCommandError, HomeAssistantUnavailableError
from addon.ha.protocol import excerpt


class RestApi:
    """Authenticated JSON reads under one base URL (``…/api``)."""

    def __init__(
        self, session: aiohttp.ClientSession, base_url: str, token: str, default_timeout: float
    ) -> None:
        self._session = session
        self._base_url = base_url.rstrip("/")
        self._token = token
        self._default_timeout = default_timeout

    async def get(self, path: str, limit: float | None) -> Any:
        """GET ``path``; JSON answers are decoded, others returned as text (or None)."""
        url = f"{self._base_url}/{path.lstrip('/')}"
        limit = self._default_timeout if limit is None else limit
        try:
            async with self._session.get(
                url,
                headers={"Authorization": f"Bearer {self._token}"},
                timeout=aiohttp.ClientTimeout(total=limit),
            ) as response:
                body = await response.text()
                if not 200 <= response.status < 300:
                    raise HomeAssistantCommandError(
                        f"http_{response.status}",
                        f"GET {path} answered {response.status}: {excerpt(body)}",
                    )
                if response.content_type == "application/json" and body:
                    return json.loads(body)
                return body or None
        except TimeoutError:
            raise HomeAssistantUnavailableError(
                f"Home Assistant did not answer GET {path} within {limit:g} s"
            ) from None
        except aiohttp.ClientError as err:
            raise HomeAssistantUnavailableError(f"GET {path} failed: {err}") from err
