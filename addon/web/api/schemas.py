"""The HTTP conversation API's request and response bodies, the single source of its OpenAPI."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from addon.agent.conversation import ConversationRequest, ConversationResult, Source
from addon.text import JsonObject
from addon.web.access import NO_IDENTITY, IngressIdentity

MAX_TEXT = 4000
MAX_ID = 128
# The store's conversations.id column holds 64 characters.
MAX_CONVERSATION_ID = 64
# Letters, digits and ``_ . : -``: safe in URLs, logs and the UI without escaping surprises, and
# wide enough for uuids, Home Assistant ids and the façade's "openai-<hash>".
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$"
LANGUAGE_PATTERN = r"^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$"


class ConversationIn(BaseModel):
    """One utterance for the agent.

    Strict, and unknown fields are refused: a caller who sends ``"dry_run": "yes"`` or misspells
    ``conversation_id`` learns so at once instead of acting for real in a new conversation.
    """

    model_config = ConfigDict(strict=True, extra="forbid")

    text: str = Field(min_length=1, max_length=MAX_TEXT, description="What the user said or typed.")
    conversation_id: str | None = Field(
        default=None,
        max_length=MAX_CONVERSATION_ID,
        pattern=ID_PATTERN,
        description="Continue this conversation (from an earlier answer); omit to start one.",
    )
    language: str | None = Field(
        default=None,
        max_length=16,
        pattern=LANGUAGE_PATTERN,
        description="Language code such as 'en' or 'de-CH'; defaults to the add-on's option.",
    )
    device_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_ID,
        description="Home Assistant device the user spoke to; gives the agent the room.",
    )
    dry_run: bool | None = Field(
        default=None,
        description=(
            "Act on a copy of the home instead of the real one; defaults to the option. "
            "With the dry_run option on, false is ignored: nothing acts for real."
        ),
    )

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        stripped = value.strip()
        if not stripped:
            raise ValueError("must contain more than whitespace")
        return stripped

    def to_request(
        self, identity: IngressIdentity = NO_IDENTITY, source: Source = "http"
    ) -> ConversationRequest:
        """The agent's request for this body, from the HTTP API or MCP's ``converse`` tool.

        ``identity`` is ingress's user (the HTTP API on ingress); MCP's callers name no user.
        """
        return ConversationRequest(
            text=self.text,
            source=source,
            conversation_id=self.conversation_id,
            language=self.language,
            device_id=self.device_id,
            dry_run=self.dry_run,
            user_id=identity.user_id,
            user_name=identity.name,
        )


class ActionOut(BaseModel):
    """A tool call that acted on (or read) the home during the turn."""

    tool: str
    arguments: JsonObject
    success: bool
    targets: list[str] = Field(description="Entity ids the action reached.")
    error: str | None


class ConversationOut(BaseModel):
    """The agent's answer to one utterance."""

    reply: str = Field(description="What to say or show to the user.")
    conversation_id: str = Field(description="Send back to continue the conversation.")
    turn_id: int = Field(description="The stored turn, as shown in the add-on's UI.")
    handled_by: Literal["local", "llm", "failed"] = Field(
        description="Home Assistant's sentence matcher, the model, or neither (an apology)."
    )
    actions: list[ActionOut]
    continue_conversation: bool = Field(
        description="The reply asks something; a voice satellite should listen again."
    )
    needs_confirmation: JsonObject | None = Field(
        default=None,
        description=(
            "The actions the confirmation policy held (action, entity ids, names, data) and "
            "how to confirm them (method: yes or pin); the next turn of this conversation "
            "confirms them with a yes or the PIN, anything else cancels. Null when none."
        ),
    )

    @classmethod
    def from_result(cls, result: ConversationResult) -> ConversationOut:
        """The public view of a finished turn: the result's fields of these names, nothing else."""
        return cls.model_validate(result, from_attributes=True)


class DeltaEvent(BaseModel):
    """Data of a ``delta`` event: the next piece of the reply as the model writes it."""

    text: str


class ErrorOut(BaseModel):
    """Every 4xx/5xx body, and the data of a stream's ``error`` event."""

    error: str = Field(description="A stable code, e.g. 'invalid_field' or 'unauthorized'.")
    message: str = Field(description="What went wrong, naming the field.")
    field: str | None = Field(default=None, description="The offending field, when there is one.")
