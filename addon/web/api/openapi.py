"""``GET /api/openapi.json``: the API described from the same pydantic models that validate it.

Generated on each request rather than written by hand, so the description cannot drift from what
the handlers accept; it costs a few milliseconds, and only when someone asks.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web
from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from addon import __version__
from addon.text import JsonArray, JsonObject
from addon.web.access import INGRESS_PATH
from addon.web.api.eval_schemas import EvaluationIn, EvaluationOut, EvaluationStartedOut
from addon.web.api.openai_schemas import (
    ChatCompletionChunk,
    ChatCompletionIn,
    ChatCompletionOut,
    ModelList,
    ModelOut,
)
from addon.web.api.schemas import ConversationIn, ConversationOut, DeltaEvent, ErrorOut
from addon.web.api.tool_schemas import (
    SecretIn,
    SecretListOut,
    SecretNameOut,
    ToolDiffOut,
    ToolEnabledIn,
    ToolExportOut,
    ToolImportIn,
    ToolImportOut,
    ToolListOut,
    ToolOut,
    ToolRestoreIn,
    ToolSaveIn,
    ToolTryIn,
    ToolTryOut,
    ToolVersionListOut,
)

_REF = "#/components/schemas/{model}"
_MODELS: list[tuple[type[BaseModel], JsonSchemaMode]] = [
    (ConversationIn, "validation"),
    (ConversationOut, "serialization"),
    (DeltaEvent, "serialization"),
    (ErrorOut, "serialization"),
    (ChatCompletionIn, "validation"),
    (ChatCompletionOut, "serialization"),
    (ChatCompletionChunk, "serialization"),
    (ModelList, "serialization"),
    (ModelOut, "serialization"),
    (EvaluationIn, "validation"),
    (EvaluationStartedOut, "serialization"),
    (EvaluationOut, "serialization"),
    (ToolSaveIn, "validation"),
    (ToolEnabledIn, "validation"),
    (ToolRestoreIn, "validation"),
    (ToolTryIn, "validation"),
    (ToolImportIn, "validation"),
    (SecretIn, "validation"),
    (ToolOut, "serialization"),
    (ToolListOut, "serialization"),
    (ToolVersionListOut, "serialization"),
    (ToolDiffOut, "serialization"),
    (ToolTryOut, "serialization"),
    (ToolImportOut, "serialization"),
    (ToolExportOut, "serialization"),
    (SecretNameOut, "serialization"),
    (SecretListOut, "serialization"),
]
_DESCRIPTION = """\
Talk to the home agent over HTTP.

**Access.** Through Home Assistant ingress no credentials are needed (Home Assistant has
authenticated the user). On the add-on's own port, send a token as `Authorization: Bearer
<token>`: the `api_token` option opens the conversation scope only (`/api/conversation`, its
stream, this document, `/v1`, `/mcp`); the tools and secrets routes need ingress or the
`admin_token` option, and answer 403 `insufficient_scope` to the `api_token`. With no token set,
that port answers 403 to everything but `/health`, which says only `ok` or `down` without one.

**Errors** under `/api` are `{"error": code, "message": text, "field": name}`; under `/v1` they
follow OpenAI's `{"error": {"message", "type", "param", "code"}}`.
"""
_STREAM_DESCRIPTION = """\
Server-sent events, in order:

- `delta` (any number): `DeltaEvent`, the next piece of the reply as the model writes it;
- then exactly one of `result` (`ConversationOut`, the same body as `/api/conversation`) or
  `error` (`ErrorOut`) if the turn failed after the stream began.

The deltas always end with the reply; `result.reply` is authoritative.
"""


async def openapi_view(request: web.Request) -> web.Response:
    """The OpenAPI 3.1 document, with the ingress prefix as server URL when behind ingress."""
    return web.json_response(openapi_document(request.get(INGRESS_PATH) or "/"))


def openapi_document(server_url: str) -> JsonObject:
    """The whole document; ``server_url`` is where the paths below are mounted."""
    _, definitions = models_json_schema(_MODELS, ref_template=_REF)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Home Agent", "version": __version__, "description": _DESCRIPTION},
        "servers": [{"url": server_url}],
        "security": [{"bearerAuth": []}],
        "paths": {
            "/api/conversation": {"post": _conversation()},
            "/api/conversation/stream": {"post": _conversation_stream()},
            "/api/openapi.json": {"get": _openapi()},
            "/v1/chat/completions": {"post": _chat_completions()},
            "/v1/models": {"get": _models()},
            "/health": {"get": _health()},
            **_tool_paths(),
            **_evaluation_paths(),
        },
        "components": {
            "schemas": definitions.get("$defs", {}),
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": (
                        "The add-on's api_token (conversation) or admin_token (everything) "
                        "option; not needed through ingress."
                    ),
                }
            },
            "responses": {
                "Refused": _error(
                    "Missing or wrong bearer token (401), direct port off or a token "
                    "without the route's scope (403)."
                ),
                "Invalid": _error("The body is not JSON, too large, or a field is invalid."),
            },
        },
    }


def _conversation() -> JsonObject:
    return {
        "operationId": "converse",
        "summary": "Send one utterance; get the reply when the turn is done.",
        "requestBody": _json_body("ConversationIn"),
        "responses": {
            "200": {"description": "The turn's reply.", "content": _json("ConversationOut")},
            **_refusals(),
        },
    }


def _conversation_stream() -> JsonObject:
    return {
        "operationId": "converseStreaming",
        "summary": "Send one utterance; stream the reply as it is written.",
        "description": _STREAM_DESCRIPTION,
        "requestBody": _json_body("ConversationIn"),
        "responses": {
            "200": {
                "description": "An event stream of `delta`, then `result` or `error`.",
                "content": {"text/event-stream": {"schema": {"type": "string"}}},
            },
            **_refusals(),
        },
    }


def _openapi() -> JsonObject:
    return {
        "operationId": "openapi",
        "summary": "This document.",
        "responses": {"200": {"description": "OpenAPI 3.1.", "content": {"application/json": {}}}},
    }


def _chat_completions() -> JsonObject:
    return {
        "operationId": "createChatCompletion",
        "summary": "OpenAI-compatible chat completion answered by the home agent.",
        "description": (
            "The last user message is the utterance; `user` continues a conversation; client "
            "`tools` are ignored. With `stream: true`, OpenAI's `chat.completion.chunk` events "
            "end with `data: [DONE]`."
        ),
        "requestBody": _json_body("ChatCompletionIn"),
        "responses": {
            "200": {
                "description": "The completion, or its chunks when streaming.",
                "content": {
                    **_json("ChatCompletionOut"),
                    "text/event-stream": {
                        "schema": {"$ref": _REF.format(model="ChatCompletionChunk")}
                    },
                },
            },
            "4XX": {"description": "OpenAI's error body.", "content": {"application/json": {}}},
        },
    }


def _models() -> JsonObject:
    return {
        "operationId": "listModels",
        "summary": "The one model, `home-agent`.",
        "responses": {"200": {"description": "The model list.", "content": _json("ModelList")}},
    }


def _health() -> JsonObject:
    return {
        "operationId": "health",
        "summary": (
            "Liveness for Supervisor's watchdog; open without credentials, which get only "
            "the status, while ingress and token callers get each component."
        ),
        "security": [],
        "responses": {
            "200": {"description": "Critical components are up."},
            "503": {"description": "A critical component (the store) is down."},
        },
    }


def _tool_paths() -> JsonObject:
    """The custom tools and secrets routes of :mod:`addon.web.api.tools`."""
    tool = "/api/tools/{id}"
    return {
        "/api/tools": {
            "get": _op("listTools", "Every tool with its use.", out="ToolListOut"),
            "post": _op("createTool", "Create a tool (version 1).", "ToolSaveIn", "ToolOut", "201"),
        },
        "/api/tools/try": {
            "post": _op(
                "tryUnsavedTool",
                "Run an unsaved definition once, as the model would; secrets masked.",
                "ToolTryIn",
                "ToolTryOut",
            )
        },
        "/api/tools/import": {
            "post": _op(
                "importTools",
                "Import Extended OpenAI Conversation functions; refused entries say why.",
                "ToolImportIn",
                "ToolImportOut",
            )
        },
        "/api/tools/export": {
            "get": _op(
                "exportTools",
                "Tools as Extended OpenAI Conversation YAML (`?ids=1,2`, else all).",
                out="ToolExportOut",
            )
        },
        tool: {
            "get": _op("getTool", "One tool, deleted or not.", out="ToolOut", path=True),
            "put": _op("saveTool", "Save the next version.", "ToolSaveIn", "ToolOut", path=True),
            "delete": _op("deleteTool", "Delete, reversibly.", out="ToolOut", path=True),
        },
        f"{tool}/undelete": {
            "post": _op("undeleteTool", "Bring a deleted tool back.", out="ToolOut", path=True)
        },
        f"{tool}/enabled": {
            "post": _op(
                "enableTool", "Offer it to the model or not.", "ToolEnabledIn", "ToolOut", path=True
            )
        },
        f"{tool}/versions": {
            "get": _op(
                "listToolVersions",
                "Every version, newest first.",
                out="ToolVersionListOut",
                path=True,
            )
        },
        f"{tool}/diff": {
            "get": _op(
                "diffToolVersions",
                "A unified diff between versions `?from=N&to=M[&format=json]`.",
                out="ToolDiffOut",
                path=True,
            )
        },
        f"{tool}/restore": {
            "post": _op(
                "restoreToolVersion",
                "Make an old version current again, as a new version.",
                "ToolRestoreIn",
                "ToolOut",
                path=True,
            )
        },
        f"{tool}/try": {
            "post": _op(
                "tryTool",
                "Run the tool once, as the model would; secrets masked.",
                "ToolTryIn",
                "ToolTryOut",
                path=True,
            )
        },
        "/api/secrets": {
            "get": _op("listSecrets", "Secrets by name; never a value.", out="SecretListOut")
        },
        "/api/secrets/{name}": {
            "put": _op(
                "setSecret",
                "Create or replace a secret; the answer does not repeat it.",
                "SecretIn",
                "SecretNameOut",
                name=True,
            ),
            "delete": _op("deleteSecret", "Delete a secret.", out="SecretNameOut", name=True),
        },
    }


def _evaluation_paths() -> JsonObject:
    """The evaluation routes of :mod:`addon.web.api.evaluations`."""
    started = _op(
        "startEvaluation",
        "Start a run: the ready-made suite, its model-only variant, your tests or a task file.",
        "EvaluationIn",
        "EvaluationStartedOut",
        "202",
        more={"409": "No home to test yet, or no saved test."},
    )
    run = _op(
        "getEvaluation",
        "A run so far: settings, progress, results.",
        out="EvaluationOut",
        path=True,
        more={"404": "No such run."},
    )
    return {"/api/evaluations": {"post": started}, "/api/evaluations/{id}": {"get": run}}


def _op(
    operation_id: str,
    summary: str,
    body: str | None = None,
    out: str | None = None,
    status: str = "200",
    *,
    path: bool = False,
    name: bool = False,
    more: Mapping[str, str] | None = None,
) -> JsonObject:
    """One operation with the API's usual refusals (and 404 for a tool or secret not found).

    ``more``: further error answers by status, each with its description (they win).
    """
    operation: JsonObject = {"operationId": operation_id, "summary": summary}
    parameters: JsonArray = []
    if path:
        parameters.append(_path_parameter("id", "integer"))
    if name:
        parameters.append(_path_parameter("name", "string"))
    if parameters:
        operation["parameters"] = parameters
    if body is not None:
        operation["requestBody"] = _json_body(body)
    answer: JsonObject = {"description": summary}
    if out is not None:
        answer["content"] = _json(out)
    responses: JsonObject = {status: answer, **_refusals()}
    if path or name:
        responses["404"] = _error("No such tool, version or secret.")
    for code, description in (more or {}).items():
        responses[code] = _error(description)
    operation["responses"] = responses
    return operation


def _path_parameter(name: str, kind: str) -> JsonObject:
    return {"name": name, "in": "path", "required": True, "schema": {"type": kind}}


def _refusals() -> JsonObject:
    refused: JsonObject = {"$ref": "#/components/responses/Refused"}
    invalid: JsonObject = {"$ref": "#/components/responses/Invalid"}
    return {
        "400": invalid,
        "401": refused,
        "403": refused,
        "413": invalid,
        "415": invalid,
        "422": invalid,
    }


def _json(model: str) -> JsonObject:
    return {"application/json": {"schema": {"$ref": _REF.format(model=model)}}}


def _json_body(model: str) -> JsonObject:
    return {"required": True, "content": _json(model)}


def _error(description: str) -> JsonObject:
    return {"description": description, "content": _json("ErrorOut")}
