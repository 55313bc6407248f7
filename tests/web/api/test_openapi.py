"""``GET /api/openapi.json``: the API described from its own models."""

from __future__ import annotations

from typing import Any

from tests.web.api.conftest import AppClient


async def document(api: AppClient) -> dict[str, Any]:
    response = await api.get("/api/openapi.json")
    assert response.status == 200
    body: dict[str, Any] = await response.json()
    return body


async def test_document_lists_the_paths(api: AppClient) -> None:
    """The document is OpenAPI 3.1 with every route of the API and the façade."""
    body = await document(api)
    assert body["openapi"] == "3.1.0"
    assert set(body["paths"]) >= {
        "/api/conversation",
        "/api/conversation/stream",
        "/v1/chat/completions",
        "/v1/models",
    }


async def test_every_reference_resolves(api: AppClient) -> None:
    """Each ``$ref`` points at a schema or response the document defines."""
    body = await document(api)
    refs: list[str] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            refs.extend(v for k, v in node.items() if k == "$ref")
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(body)
    assert refs
    for ref in refs:
        section, name = ref.removeprefix("#/components/").split("/")
        assert name in body["components"][section], ref


async def test_request_schema_carries_the_limits(api: AppClient) -> None:
    """The request schema states the text limits the handler enforces."""
    text = (await document(api))["components"]["schemas"]["ConversationIn"]["properties"]["text"]
    assert (text["minLength"], text["maxLength"]) == (1, 4000)


async def test_bearer_auth_is_described(api: AppClient) -> None:
    """Bearer auth is the default, and /health is marked as open."""
    body = await document(api)
    assert body["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    assert body["security"] == [{"bearerAuth": []}]
    assert body["paths"]["/health"]["get"]["security"] == []
