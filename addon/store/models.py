"""The tables Home Agent records into, as SQLAlchemy 2 declarative models.

Each table is read and written through the store module named for it (the agent's turns
through ``conversations.py`` and the writer; the panel's edits through ``custom_tools.py``,
``stored_secrets.py``, ``mcp_servers.py``, ``memories.py`` and the others), which callers hand a
session. Schema changes go through an Alembic revision in ``addon/store/migrations/versions``
(``create_all`` is for nothing but tests of the models themselves). Times are stored as UTC and
come back timezone-aware (``column_types.py``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.ext.asyncio import AsyncAttrs
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeEngine

from addon.store.column_types import NAMING_CONVENTION, UTCDateTime
from addon.text import JsonObject


def utcnow() -> datetime:
    """The current time, timezone-aware, for column defaults."""
    return datetime.now(UTC)


class Base(AsyncAttrs, DeclarativeBase):
    """Declarative base with the constraint naming convention Alembic batch mode needs."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[object, type[TypeEngine[datetime]] | type[JSON]]] = {
        datetime: UTCDateTime,
        JsonObject: JSON,
    }


class Conversation(Base):
    """A conversation: the turns that share a ``conversation_id``."""

    __tablename__ = "conversations"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    source: Mapped[str] = mapped_column(String(16))  # wyoming, http, openai, ui, eval
    device_id: Mapped[str | None] = mapped_column(String(128))
    satellite_id: Mapped[str | None] = mapped_column(String(128))
    language: Mapped[str] = mapped_column(String(16), default="en")
    title: Mapped[str] = mapped_column(String(200), default="")
    turn_count: Mapped[int] = mapped_column(Integer, default=0)
    error_count: Mapped[int] = mapped_column(Integer, default=0)
    flagged_count: Mapped[int] = mapped_column(Integer, default=0)

    turns: Mapped[list[Turn]] = relationship(
        back_populates="conversation", cascade="all, delete-orphan", order_by="Turn.seq"
    )

    __table_args__ = (
        Index("ix_conversations_updated_at_id", "updated_at", "id"),
        Index("ix_conversations_started_at", "started_at"),
        Index("ix_conversations_device_updated", "device_id", "updated_at"),
    )


class Turn(Base):
    """One user utterance and the agent's reply, with how it was handled."""

    __tablename__ = "turns"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), index=True
    )
    seq: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    user_text: Mapped[str] = mapped_column(Text)
    reply_text: Mapped[str] = mapped_column(Text, default="")
    handled_by: Mapped[str] = mapped_column(String(16))  # local, llm, failed
    language: Mapped[str] = mapped_column(String(16), default="en")
    dry_run: Mapped[bool] = mapped_column(Boolean, default=False)
    error: Mapped[str | None] = mapped_column(Text)
    # Why the turn failed or was cut short, as addon.errors.ErrorKind names it; NULL if it did not.
    error_kind: Mapped[str | None] = mapped_column(String(32))
    duration_ms: Mapped[float] = mapped_column(Float, default=0.0)
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    # The OpenAI-format messages this turn added to the conversation (user, assistant with tool
    # calls, tool results, final reply): replaying them in order rebuilds history after a restart.
    messages: Mapped[list[JsonObject]] = mapped_column(JSON, default=list)
    # Named timings in ms (local_match, prompt_build, llm_total, tools_total, ...).
    timings: Mapped[JsonObject] = mapped_column(JSON, default=dict)
    # Outcome check: unchecked, confirmed, mismatch, not_applicable; flagged when the reply
    # claims an action that Home Assistant did not report.
    outcome: Mapped[str] = mapped_column(String(16), default="unchecked")
    outcome_detail: Mapped[JsonObject] = mapped_column(JSON, default=dict)
    flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    # In a large home, the entities selected for the turn and why (name, area, history, memory,
    # search, ...); NULL when the whole overview was in the prompt.
    context: Mapped[JsonObject | None] = mapped_column(JSON)
    # The acted-on entities' states before and after the turn ("Save as test"); NULL when
    # nothing acted, and for turns stored before.
    states: Mapped[JsonObject | None] = mapped_column(JSON)
    # Who asked: person, satellite and endpoint ("unknown" where the path cannot tell); NULL for
    # turns stored before.
    actor: Mapped[JsonObject | None] = mapped_column(JSON)

    conversation: Mapped[Conversation] = relationship(back_populates="turns")
    llm_calls: Mapped[list[LLMCall]] = relationship(
        back_populates="turn", cascade="all, delete-orphan", order_by="LLMCall.seq"
    )
    tool_calls: Mapped[list[ToolCall]] = relationship(
        back_populates="turn", cascade="all, delete-orphan", order_by="ToolCall.seq"
    )
    # The memories recalled into this turn's request, for its trace (the rows are the store's
    # to delete: a memory forgotten for good takes its recalls with it).
    memory_recalls: Mapped[list[MemoryRecall]] = relationship(
        viewonly=True, order_by="MemoryRecall.id"
    )

    __table_args__ = (
        UniqueConstraint("conversation_id", "seq", name="uq_turns_conversation_seq"),
        Index("ix_turns_created_at_id", "created_at", "id"),
        Index("ix_turns_handled_by_created", "handled_by", "created_at"),
    )


class LLMCall(Base):
    """One request to the model endpoint within a turn, with exactly what was sent.

    The system prompt and the tool list are the bulk of every request (the whole home overview)
    and the same for most of them, so they live once in ``llm_payloads``: ``request_messages``
    then holds a reference in place of the system message's content and ``request_tools`` is
    empty, and :mod:`addon.store.turns.payloads` puts them back together. Rows written before that
    keep both inline, with no hashes.
    """

    __tablename__ = "llm_calls"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    model: Mapped[str] = mapped_column(String(200))
    streamed: Mapped[bool] = mapped_column(Boolean, default=False)
    request_messages: Mapped[list[JsonObject]] = mapped_column(JSON, default=list)
    request_tools: Mapped[list[JsonObject]] = mapped_column(JSON, default=list)
    # Plain columns rather than foreign keys: retention deletes payloads nobody references
    # (indexed for that look-up), and a restricting key would only get in its way.
    system_prompt_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    tools_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    response: Mapped[JsonObject] = mapped_column(JSON, default=dict)
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    ttft_ms: Mapped[float | None] = mapped_column(Float)
    duration_ms: Mapped[float] = mapped_column(Float, default=0.0)
    finish_reason: Mapped[str | None] = mapped_column(String(32))
    error: Mapped[str | None] = mapped_column(Text)
    # None for the calls that answered the turn; "memory" for the memory extraction after it.
    purpose: Mapped[str | None] = mapped_column(String(16))
    # Who answered (primary, backup, expert); an expert call names the tool call that made it.
    endpoint: Mapped[str] = mapped_column(String(16), default="primary", server_default="primary")
    tool_call_id: Mapped[str | None] = mapped_column(String(128))
    note: Mapped[str | None] = mapped_column(Text)

    turn: Mapped[Turn] = relationship(back_populates="llm_calls")


class LLMPayload(Base):
    """A system prompt or tool list sent to the model, stored once by the SHA-256 of its text."""

    __tablename__ = "llm_payloads"

    hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # system_prompt, tools
    # The system prompt itself, or the tool list as the JSON text that was hashed.
    content: Mapped[str] = mapped_column(Text)
    size: Mapped[int] = mapped_column(Integer)  # bytes of content in UTF-8
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ToolCall(Base):
    """One tool execution, from the model or the local path, with its result."""

    __tablename__ = "tool_calls"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id", ondelete="CASCADE"), index=True)
    llm_call_id: Mapped[int | None] = mapped_column(
        ForeignKey("llm_calls.id", ondelete="SET NULL"), index=True
    )
    seq: Mapped[int] = mapped_column(Integer)
    call_id: Mapped[str] = mapped_column(String(128), default="")
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    name: Mapped[str] = mapped_column(String(128), index=True)
    arguments: Mapped[JsonObject] = mapped_column(JSON, default=dict)
    result: Mapped[JsonObject] = mapped_column(JSON, default=dict)
    duration_ms: Mapped[float] = mapped_column(Float, default=0.0)
    executor: Mapped[str] = mapped_column(String(16))  # live, virtual, builtin, custom
    error: Mapped[str | None] = mapped_column(Text)

    turn: Mapped[Turn] = relationship(back_populates="tool_calls")


class TurnJournalEntry(Base):
    """A turn answered before its rows are written: the whole turn as one row of JSON.

    The answer waits for this one small row's commit, not for the turn's rows in five tables
    and a dozen indexes; the writer writes those right after and deletes the entry in the same
    transaction, and a start after a crash writes what is left (:mod:`addon.store.turns.journal`).
    """

    __tablename__ = "turn_journal"

    turn_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    body: Mapped[str] = mapped_column(Text)


class IdCounter(Base):
    """The next id nobody has reserved, per table whose ids are given out before their rows.

    The store's writer reserves turn and model-call ids here ahead of writing the rows, so an
    id it has given out can never be taken by another writer (:mod:`addon.store.turns.ids`).
    """

    __tablename__ = "id_counters"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)  # the table's name
    next_id: Mapped[int] = mapped_column(Integer)


class Memory(Base):
    """Something worth remembering across conversations, learned from one or added by hand.

    Deleting sets ``deleted_at`` and keeps the row, so a delete can be undone. The FTS5 index
    ``memories_fts`` over ``content`` is kept in step by triggers (see the migration), like
    ``turns_fts``. ``embedding`` is little-endian float32, made by ``embedding_model``.
    """

    __tablename__ = "memories"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    content: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(
        String(16), default="fact"
    )  # fact, preference, context, event
    importance: Mapped[float] = mapped_column(Float, default=0.5)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_recalled_at: Mapped[datetime | None] = mapped_column()
    recall_count: Mapped[int] = mapped_column(Integer, default=0)
    expires_at: Mapped[datetime | None] = mapped_column()
    pinned: Mapped[bool] = mapped_column(Boolean, default=False)
    source: Mapped[str] = mapped_column(String(16), default="conversation")  # or "manual"
    # Indexed because deleting a conversation (retention) looks up the memories that cite it.
    source_conversation_id: Mapped[str | None] = mapped_column(
        ForeignKey("conversations.id", ondelete="SET NULL"), index=True
    )
    source_turn_id: Mapped[int | None] = mapped_column(
        ForeignKey("turns.id", ondelete="SET NULL"), index=True
    )
    entity_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    # The person it belongs to (a person entity, else a Home Assistant user id); NULL: the
    # household's, recalled for everyone.
    person_id: Mapped[str | None] = mapped_column(String(255))
    areas: Mapped[list[str]] = mapped_column(JSON, default=list)
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary)
    embedding_model: Mapped[str | None] = mapped_column(String(200))
    deleted_at: Mapped[datetime | None] = mapped_column()

    __table_args__ = (Index("ix_memories_deleted_updated", "deleted_at", "updated_at"),)


class MemoryRecall(Base):
    """A memory recalled into a turn's request: the panel shows each memory's turns by it."""

    __tablename__ = "memory_recalls"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    memory_id: Mapped[int] = mapped_column(
        ForeignKey("memories.id", ondelete="CASCADE"), index=True
    )
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id", ondelete="CASCADE"), index=True)
    recalled_at: Mapped[datetime] = mapped_column(default=utcnow)

    memory: Mapped[Memory] = relationship(viewonly=True)


class CustomTool(Base):
    """A tool the user defined; its definition lives in versions, the one named current counts.

    Deleting sets ``deleted_at`` and keeps every version, so a delete can be undone; the name is
    unique only among tools that are not deleted, so a deleted tool's name can be used again.
    """

    __tablename__ = "custom_tools"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))
    # A plain column, not a foreign key: one would make the two tables a cycle that SQLite can
    # only build with the key deferred. Set in the same transaction as the version it names.
    current_version_id: Mapped[int | None] = mapped_column(Integer)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    deleted_at: Mapped[datetime | None] = mapped_column()
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    versions: Mapped[list[CustomToolVersion]] = relationship(
        back_populates="tool", cascade="all, delete-orphan", order_by="CustomToolVersion.number"
    )

    __table_args__ = (
        Index(
            "ix_custom_tools_live_name",
            "name",
            unique=True,
            sqlite_where=text("deleted_at IS NULL"),
        ),
    )


class CustomToolVersion(Base):
    """One saved definition of a custom tool; every save adds a version, none is overwritten."""

    __tablename__ = "custom_tool_versions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tool_id: Mapped[int] = mapped_column(ForeignKey("custom_tools.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)  # 1, 2, ... per tool
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The definition as the JSON text of its plain mapping, keys in the order they were written.
    definition: Mapped[str] = mapped_column(Text)
    # The YAML or JSON text the user wrote in the editor, byte for byte, when saved from it
    # (its quoting and comments kept); NULL when saved another way. ``definition`` is its meaning.
    source: Mapped[str | None] = mapped_column(Text)
    # The Home Assistant user who saved it (from the ingress headers); NULL if unknown.
    author: Mapped[str | None] = mapped_column(String(200))
    note: Mapped[str] = mapped_column(Text, default="")

    tool: Mapped[CustomTool] = relationship(back_populates="versions")

    __table_args__ = (
        UniqueConstraint("tool_id", "number", name="uq_custom_tool_versions_tool_number"),
    )


class Secret(Base):
    """A value custom tools reach as ``{{ secrets.NAME }}``: an API key, a token.

    Stored plainly, as Home Assistant keeps its own ``secrets.yaml`` under its config: the file
    lives in the add-on's private ``/data``. Only the tool runner reads the value; every other
    read gives names alone.
    """

    __tablename__ = "secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class EvalRun(Base):
    """One evaluation run: a task file run against the agent on a virtual home, and its results.

    ``results`` grows by one entry per task as the run goes, so a page shows progress by reading
    it; a run still ``running`` when the add-on starts was cut off by a restart and is marked
    ``interrupted``.
    """

    __tablename__ = "eval_runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column()
    # running, done, failed, interrupted
    status: Mapped[str] = mapped_column(String(16), default="running")
    name: Mapped[str] = mapped_column(String(200))
    # The run's settings: model, local_first, instructions.
    settings: Mapped[JsonObject] = mapped_column(JSON, default=dict)
    # The task file as it was given, so what was run can be read again.
    tasks_text: Mapped[str] = mapped_column(Text, default="")
    total: Mapped[int] = mapped_column(Integer, default=0)
    passed: Mapped[int] = mapped_column(Integer, default=0)
    # One entry per task done, in order (addon.eval.runner.TaskResult.as_dict).
    results: Mapped[list[JsonObject]] = mapped_column(JSON, default=list)
    error: Mapped[str | None] = mapped_column(Text)


class EvalTask(Base):
    """A test the user saved from a turn: one task of their own suite (a task file's task).

    ``turn_id`` names the turn it was made from, without a foreign key: retention may delete
    the turn, and the test is the user's to keep.
    """

    __tablename__ = "eval_tasks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    turn_id: Mapped[int | None] = mapped_column(Integer)
    # sentence, setup, expect, answer, tags: as in a task file (addon.eval.tasks.TaskSpec).
    task: Mapped[JsonObject] = mapped_column(JSON, default=dict)


class McpServer(Base):
    """An MCP server whose tools the agent may use; its header value lives in ``secrets``.

    ``name`` prefixes its tools' names for the model (``name__tool``); ``enabled_tools`` lists
    the server's tools the user switched on (by the server's own names). The tools themselves,
    with their schemas, are asked of the server; only what the user approved of each is kept.
    """

    __tablename__ = "mcp_servers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(32), unique=True)
    url: Mapped[str] = mapped_column(Text)
    header_name: Mapped[str | None] = mapped_column(String(64))
    """The header sent with the secret's value (``Authorization`` for a bearer token), or None."""
    secret_name: Mapped[str | None] = mapped_column(String(64))
    enabled_tools: Mapped[list[str]] = mapped_column(JSON, default=list)
    read_only_tools: Mapped[list[str]] = mapped_column(JSON, default=list, server_default="[]")
    """Tools the user marked read-only: the only ones a dry run lets run."""
    approved_tools: Mapped[JsonObject] = mapped_column(JSON, default=dict, server_default="{}")
    """Per switched-on tool, the ``description`` and ``parameters`` the user approved."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConfirmationPolicyEntry(Base):
    """One line of the confirmation policy (``home.actions.confirmation``); never the PIN itself.

    ``scope`` is ``domain``, ``device_class`` or ``entity``; ``target`` a domain, a
    ``domain.device_class`` or an entity id; ``actions`` the services it covers; ``pin_hash``
    a salted scrypt hash when ``method`` is ``pin``.
    """

    __tablename__ = "confirmation_policy"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    scope: Mapped[str] = mapped_column(String(16))
    target: Mapped[str] = mapped_column(String(255))
    actions: Mapped[list[str]] = mapped_column(JSON, default=list)
    method: Mapped[str] = mapped_column(String(8), default="yes")
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    pin_hash: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConfirmationPolicyChange(Base):
    """One change to the policy, for the Safety page's audit trail: what, when, never a PIN.

    ``change`` is ``added``, ``edited``, ``deleted``, ``enabled`` or ``disabled``; ``summary``
    the entry as it was left ("device class cover.garage: open_cover, toggle; by yes").
    """

    __tablename__ = "confirmation_policy_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    entry_id: Mapped[int] = mapped_column(Integer)
    change: Mapped[str] = mapped_column(String(16))
    summary: Mapped[str] = mapped_column(String(512))
    at: Mapped[datetime] = mapped_column(default=utcnow)


class ActorRuleRow(Base):
    """One person's or one satellite's rule (``home.actions.permissions``).

    ``kind`` is ``person`` (``subject`` a person entity id or a Home Assistant user id) or
    ``satellite`` (a device id); ``targets`` maps a domain, ``area:<id>`` or an entity id to a
    level (``none``, ``read``, ``confirm``, ``act``); ``preset`` (``guest``) lies under them.
    """

    __tablename__ = "actor_rules"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(16))
    subject: Mapped[str] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(255), default="")
    preset: Mapped[str | None] = mapped_column(String(16))
    default: Mapped[str] = mapped_column(String(8), default="act")
    targets: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    own_area: Mapped[bool] = mapped_column(Boolean, default=False)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class AutomationDraft(Base):
    """An automation the agent drafted, waiting for a person's approval, and what became of it.

    ``config`` is what Home Assistant stores (alias, description, triggers, conditions,
    actions); ``entities`` the entity ids it touches; ``confirm_by`` how a spoken approval is
    taken (``yes``, ``pin`` or ``panel`` for a covered action only the panel or a PIN may
    approve); ``covered`` the covered action in words. ``state`` is ``draft``, ``approved``,
    ``discarded`` or ``deleted``; ``automation_id`` the id it was created with in Home
    Assistant once approved, ``approved_by`` who approved it.
    """

    __tablename__ = "automation_drafts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    conversation_id: Mapped[str | None] = mapped_column(String(64))
    summary: Mapped[str] = mapped_column(Text)
    config: Mapped[JsonObject] = mapped_column(JSON, default=dict)
    entities: Mapped[list[str]] = mapped_column(JSON, default=list)
    covered: Mapped[str | None] = mapped_column(Text)
    confirm_by: Mapped[str] = mapped_column(String(8), default="yes")
    state: Mapped[str] = mapped_column(String(16), default="draft")
    automation_id: Mapped[str | None] = mapped_column(String(64))
    approved_by: Mapped[str | None] = mapped_column(String(255))
    approved_at: Mapped[datetime | None] = mapped_column()
