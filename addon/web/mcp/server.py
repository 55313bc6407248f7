"""Home Agent as an MCP server: the agent's tools, ``converse`` and its instructions at ``/mcp``.

The official ``mcp`` package speaks the protocol (both eras: the ``initialize`` handshake and the
per-request ``server/discover`` envelope); its Streamable HTTP transport runs stateless with
JSON answers, reached through :mod:`addon.web.mcp.asgi` from the aiohttp route, so the access
middleware (ingress, or the ``api_token`` or ``admin_token`` bearer) has let every request in
before it gets here.

What is offered is asked of the agent on every ``tools/list``: whatever its registry holds for a
turn (Assist intents, GetLiveContext, GetDateTime, exposed scripts, enabled custom tools, and
any tool provider wired into it later, memory included), with no code here per tool. Tools the
agent itself borrowed from other MCP servers (kind ``mcp``) are not passed on: a client can ask
those servers itself, and an add-on listed as its own MCP server would call itself in a loop.
Each ``tools/call`` runs through :meth:`Agent.call_tool` (or :meth:`Agent.process` for
``converse``) and is stored as a turn with source ``mcp``, exposure rules and dry run included.
Each tool carries its safety labels (:mod:`addon.web.mcp.labels`).
"""

from __future__ import annotations

import asyncio
import json
import logging

import mcp_types as types
from aiohttp import web
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from pydantic import ValidationError

from addon import keys
from addon.agent.conversation import ToolCall
from addon.text import JsonObject
from addon.web.api.schemas import ConversationIn, ConversationOut
from addon.web.mcp.asgi import ASGIApp
from addon.web.mcp.labels import tool_annotations

_LOGGER = logging.getLogger(__name__)

CONVERSE = "converse"
INSTRUCTIONS_PROMPT = "home_agent_instructions"
BORROWED_KINDS = frozenset({"mcp"})
"""Tool kinds not passed on to MCP clients: the tools of other MCP servers."""
DRY_RUN_META = "dry_run"
"""``_meta`` key of a ``tools/call`` that asks for a dry run (``converse`` takes an argument)."""

_CONVERSE_DESCRIPTION = (
    "Say something to Home Agent, the home's voice assistant, as a user would: it answers, "
    "acting in the home if asked. Returns the reply, the conversation id (send it back to "
    "continue the conversation) and the actions taken."
)


type _Lifespan = dict[str, object]
"""What the server's lifespan yields: nothing of ours (the handlers ask the app instead)."""


def build_server(app: web.Application) -> Server[_Lifespan]:
    """The protocol side: handlers that ask the app's agent at every request."""

    async def list_tools(
        ctx: ServerRequestContext[_Lifespan, object], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        offered = await app[keys.AGENT].offered_tools(exclude_kinds=BORROWED_KINDS)
        tools = [
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=tool.parameters,
                annotations=tool_annotations(tool.name, tool.kind),
            )
            for tool in offered
            if tool.name != CONVERSE
        ]
        tools.append(
            types.Tool(
                name=CONVERSE,
                description=_CONVERSE_DESCRIPTION,
                input_schema=_converse_schema(),
                annotations=tool_annotations(CONVERSE, "converse"),
            )
        )
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[_Lifespan, object], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name == CONVERSE:
            return await _converse(app, arguments)
        meta = params.meta or {}
        dry_run = meta.get(DRY_RUN_META)
        result = await app[keys.AGENT].call_tool(
            ToolCall(
                name=params.name,
                arguments=arguments,
                source="mcp",
                dry_run=dry_run if isinstance(dry_run, bool) else None,
            ),
            exclude_kinds=BORROWED_KINDS,
        )
        answer = result.result.for_model()
        structured = {**answer, "conversation_id": result.conversation_id}
        return types.CallToolResult(
            content=[types.TextContent(text=_json(answer))],
            structured_content=structured,
            is_error=result.error is not None,
        )

    async def list_prompts(
        ctx: ServerRequestContext[_Lifespan, object], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=INSTRUCTIONS_PROMPT,
                    title="Home Agent's instructions",
                    description=(
                        "The system prompt Home Agent gives its model: instructions and the "
                        "overview of the entities exposed to Assist."
                    ),
                )
            ]
        )

    async def get_prompt(
        ctx: ServerRequestContext[_Lifespan, object], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name != INSTRUCTIONS_PROMPT:
            raise ValueError(
                f"unknown prompt {params.name!r}; the one prompt is {INSTRUCTIONS_PROMPT}"
            )
        preview = app[keys.AGENT].prompt_preview()
        return types.GetPromptResult(
            description="Home Agent's system prompt",
            messages=[
                types.PromptMessage(
                    role="user", content=types.TextContent(text=preview.system_prompt)
                )
            ],
        )

    return Server(
        "home-agent",
        title="Home Agent",
        instructions=(
            "Tools of the home's voice assistant: Home Assistant's Assist tools on the entities "
            "exposed to Assist, the user's custom tools, and 'converse' for a whole turn."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


async def _converse(app: web.Application, arguments: JsonObject) -> types.CallToolResult:
    try:
        body = ConversationIn.model_validate(arguments)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in err.errors()
        )
        return types.CallToolResult(
            content=[types.TextContent(text=f"Invalid arguments: {problems}")], is_error=True
        )
    result = await app[keys.AGENT].process(body.to_request(source="mcp"))
    out = ConversationOut.from_result(result).model_dump(mode="json")
    return types.CallToolResult(
        content=[types.TextContent(text=result.reply)],
        structured_content=out,
        is_error=result.handled_by == "failed",
    )


def _converse_schema() -> JsonObject:
    schema = ConversationIn.model_json_schema()
    schema.pop("title", None)
    return schema


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


async def run_manager(
    app: web.Application, started: asyncio.Future[ASGIApp], stop: asyncio.Event
) -> None:
    """Run the transport's manager until ``stop``; ``started`` gets its request handler.

    Its anyio task group must be left by the task that entered it, so the caller runs this in
    a task of its own that holds it from start to stop.
    """
    manager = StreamableHTTPSessionManager(
        app=build_server(app), stateless=True, json_response=True
    )
    async with manager.run():
        started.set_result(manager.handle_request)
        await stop.wait()
