"""The parts of OpenAI's chat-completions protocol the façade reads and writes.

Requests are lenient where OpenAI clients differ (unknown fields, ``tools``, ``temperature``, ``n``
are accepted and ignored); responses follow ``openai/types/chat/chat_completion.py`` and
``chat_completion_chunk.py`` field for field, because clients parse them strictly.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from addon.text import JsonObject

MODEL_ID = "home-agent"
# Fixed, because the model list describes this add-on, not a training run.
MODEL_CREATED = 1767225600  # 2026-01-01


def _content_text(value: object) -> object:
    """A message's text: a string as is, an array of parts as its text parts joined.

    Non-text parts (images, audio) carry nothing the agent can act on and are skipped.
    """
    if not isinstance(value, list):
        return value
    texts: list[str] = []
    for part in value:
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise ValueError("content parts must be objects with a 'type'")
        if part["type"] == "text":
            if not isinstance(part.get("text"), str):
                raise ValueError("a 'text' content part needs a string 'text'")
            texts.append(part["text"])
    return "\n".join(texts)


MessageContent = Annotated[
    str | None,
    BeforeValidator(_content_text),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string"},
                {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"type": {"type": "string"}, "text": {"type": "string"}},
                        "required": ["type"],
                    },
                },
                {"type": "null"},
            ]
        }
    ),
]


class ChatMessage(BaseModel):
    """One message of the client's history; only the last user message is used."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: MessageContent = None


class StreamOptions(BaseModel):
    """``stream_options``; ``include_usage`` adds a final chunk with the turn's token counts."""

    model_config = ConfigDict(extra="ignore")

    include_usage: bool = False


class ChatCompletionIn(BaseModel):
    """A chat-completion request, of which the façade reads the fields below.

    ``tools``, ``tool_choice``, ``temperature``, ``max_tokens``, ``n`` and the rest are accepted
    and ignored: the agent has its own tools, prompt and model settings, and answers once.
    """

    model_config = ConfigDict(extra="ignore")

    model: str = Field(default=MODEL_ID, description="Any name; echoed back.")
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: str | None = Field(
        default=None,
        description="Stable id of the caller's conversation; the same value continues it.",
    )


class Usage(BaseModel):
    """Tokens the turn spent at the model endpoint (0 when the local matcher answered)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class AssistantMessage(BaseModel):
    """The agent's reply as the assistant message."""

    role: Literal["assistant"] = "assistant"
    content: str
    refusal: None = None


class Choice(BaseModel):
    """The one choice of a completion."""

    index: int = 0
    message: AssistantMessage
    logprobs: None = None
    finish_reason: Literal["stop"] = "stop"


class ChatCompletionOut(BaseModel):
    """A non-streamed answer (``object: chat.completion``)."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage
    system_fingerprint: None = None
    needs_confirmation: JsonObject | None = None
    """Home Agent's own: the actions held for confirmation (the next message confirms)."""


class Delta(BaseModel):
    """A piece of the reply; the first carries the role, the last is empty."""

    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(BaseModel):
    """The one choice of a chunk."""

    index: int = 0
    delta: Delta
    logprobs: None = None
    finish_reason: Literal["stop"] | None = None


class ChatCompletionChunk(BaseModel):
    """One streamed event (``object: chat.completion.chunk``)."""

    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str
    choices: list[ChunkChoice]
    system_fingerprint: None = None
    usage: Usage | None = None


class ModelOut(BaseModel):
    """The one model the façade offers: the home agent itself."""

    id: str = MODEL_ID
    object: Literal["model"] = "model"
    created: int = MODEL_CREATED
    owned_by: str = "home-agent"


class ModelList(BaseModel):
    """``GET /v1/models``."""

    object: Literal["list"] = "list"
    data: list[ModelOut]
