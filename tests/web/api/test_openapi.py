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


async def test_the_custom_tools_routes_are_listed(api: AppClient) -> None:
    """Every tools and secrets route is in the document with its method and body schemas."""
    paths = (await document(api))["paths"]
    expected = {
        "/api/tools": {"get", "post"},
        "/api/tools/try": {"post"},
        "/api/tools/import": {"post"},
        "/api/tools/export": {"get"},
        "/api/tools/{id}": {"get", "put", "delete"},
        "/api/tools/{id}/undelete": {"post"},
        "/api/tools/{id}/enabled": {"post"},
        "/api/tools/{id}/versions": {"get"},
        "/api/tools/{id}/diff": {"get"},
        "/api/tools/{id}/restore": {"post"},
        "/api/tools/{id}/try": {"post"},
        "/api/secrets": {"get"},
        "/api/secrets/{name}": {"put", "delete"},
    }
    assert {path: set(paths.get(path, {})) for path in expected} == expected
    try_body = paths["/api/tools/{id}/try"]["post"]["requestBody"]["content"]
    assert try_body["application/json"]["schema"]["$ref"].endswith("/ToolTryIn")


async def test_every_tool_route_of_the_app_is_described(api: AppClient) -> None:
    """No route under /api/tools, /api/secrets or /api/evaluations is missing from the document."""
    paths = (await document(api))["paths"]
    described = {(path, method.upper()) for path, item in paths.items() for method in item}
    mounted = {
        (route.resource.canonical.replace("{id:\\d+}", "{id}"), route.method)
        for route in api.app.router.routes()
        if route.resource is not None
        and route.resource.canonical.startswith(("/api/tools", "/api/secrets", "/api/evaluations"))
        and route.method != "HEAD"
    }
    assert mounted
    assert mounted <= described


async def test_the_evaluation_routes_offer_the_suite_and_its_model_variant(api: AppClient) -> None:
    """The run's body schema names every task source, the model-only suite among them."""
    body = await document(api)
    assert set(body["paths"]["/api/evaluations"]) == {"post"}
    assert set(body["paths"]["/api/evaluations/{id}"]) == {"get"}
    tasks = body["components"]["schemas"]["EvaluationIn"]["properties"]["tasks"]
    assert tasks["enum"] == ["suite", "suite-model", "saved", "text"]
