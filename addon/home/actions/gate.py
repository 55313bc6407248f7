"""The one gate every action and every read of the home passes, whatever path it takes.

Home Agent promises that it acts only on what the user exposed to Assist and that a dry run never
acts. Local sentences, the intent tools, each kind of custom tool, MCP servers' tools, calls into
our own MCP server and evaluation all reach the home differently; each asks the :class:`Gate` of
the call before it acts or hands back what it read, and the gate answers with a
:class:`Decision`, the same rules in one place. A new path gets the rules by asking the gate, not
by remembering them.

The gate decides four things:

* **dry run**: in a dry run, a call that acts is held (recorded, not sent). Whether it acts is
  the caller's declaration, overruled where the kind always acts: a Home Assistant action or a
  script always acts, and so does an HTTP request other than GET, whatever ``acts`` says;
* **exposure**: an entity that did not come literally from the user's own definition must be
  exposed to Assist; an area, device, floor or label (which stand for entities we cannot check
  one by one) only when the user wrote it; a template's result only when it read nothing but
  exposed entities (not a whole domain, not every state);
* **forbidden actions**: a short list of actions that can harm the host (``hassio.*``,
  ``shell_command.*``, stopping Home Assistant...) no tool may call, from this one list;
* **confirmation**: an action the user's policy covers (unlocking a lock...) is held with the
  verdict ``confirm`` until the user says yes (:mod:`addon.home.actions.confirmation`; the turn's
  :class:`~addon.home.actions.confirmation.Holds` keeps what was held), and so is a tool that
  labels itself destructive (:class:`ToolLabels`) unless an entry the user switched off waives it;
* **who is asking**: the rules of the turn's person and satellite (the Safety page, kept on the
  turn's ``Holds`` as its :class:`~addon.home.actions.permissions.Access`) refuse an action on
  what they may not act on, in the person's words ("Kids Room Speaker can't unlock the Front
  Door."), hold what they may act on only with confirmation, and refuse a read of what they
  may not read, judged like the policy by each call's effects (scripts and scenes included).

A tool's own labels (an MCP server's safety hints) can only make the gate stricter, or let a
read-only tool run in a dry run: they never pass over exposure or an entry of the policy.

Every decision is kept on the gate and recorded in the turn's trace.
Deciding costs a few microseconds: no I/O, nothing but set lookups.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from addon.errors import ActorRefusedError
from addon.home.actions.confirmation import Holds
from addon.home.actions.wire import texts
from addon.text import JsonObject, JsonValue

Verdict = Literal["allow", "hold", "refuse", "confirm"]
"""``allow``: go ahead; ``hold``: a dry run records it without sending; ``refuse``: never;
``confirm``: held until the user confirms (:mod:`addon.home.actions.confirmation`)."""

Rule = Literal["dry_run", "exposure", "forbidden", "read_only", "confirmation", "actor"]

FORBIDDEN_ACTIONS: tuple[str, ...] = (
    "hassio.*",
    "shell_command.*",
    "python_script.*",
    "pyscript.*",
    "homeassistant.stop",
    "homeassistant.restart",
    "homeassistant.reload_all",
    "homeassistant.reload_core_config",
    "homeassistant.set_location",
    "recorder.purge",
    "recorder.purge_entities",
    "recorder.disable",
    "backup.*",
    "system_log.clear",
    "logger.set_default_level",
    "logger.set_level",
)
"""Actions no tool may call: they run commands on the host, stop or reconfigure Home Assistant,
or erase its history. Patterns as ``fnmatch`` reads them; one list for the import, the editor,
the API and every call."""

ALWAYS_ACTS = frozenset({"service", "script"})
"""Kinds of call that act whatever their declaration says."""

TARGET_KEYS = frozenset({"area_id", "device_id", "floor_id", "label_id"})
"""Keys that name a group of entities: allowed only as the user wrote them."""

ENTITY_KEYS = frozenset({"entity_id", "entity_ids", "entities"})
"""Keys whose values (or a mapping's keys, as ``scene.apply``'s ``entities``) are entity ids."""

ENTITY_DOMAINS = frozenset(
    {
        "air_quality", "alarm_control_panel", "assist_satellite", "automation", "binary_sensor",
        "button", "calendar", "camera", "climate", "conversation", "counter", "cover", "date",
        "datetime", "device_tracker", "event", "fan", "group", "humidifier", "image",
        "input_boolean", "input_button", "input_datetime", "input_number", "input_select",
        "input_text", "lawn_mower", "light", "lock", "media_player", "notify", "number",
        "person", "remote", "scene", "schedule", "script", "select", "sensor", "siren", "stt",
        "sun", "switch", "text", "time", "timer", "todo", "tts", "update", "vacuum", "valve",
        "wake_word", "water_heater", "weather", "zone",
    }
)  # fmt: skip
"""Home Assistant's entity domains: a string elsewhere in an action's data that looks like
``<one of these>.<object id>`` is treated as an entity id and checked like one."""


_ENTITY_ID = re.compile(r"^([a-z][a-z0-9_]*)\.[a-z0-9_]+$")


def forbidden(action: str) -> str | None:
    """The pattern of :data:`FORBIDDEN_ACTIONS` that ``action`` matches, or None."""
    name = action.strip().lower()
    for pattern in FORBIDDEN_ACTIONS:
        if fnmatch.fnmatchcase(name, pattern):
            return pattern
    return None


def acts(kind: str, declared: bool, method: str | None = None) -> bool:
    """Whether a call of ``kind`` acts: its declaration, unless the kind always acts."""
    if kind in ALWAYS_ACTS:
        return True
    if kind == "rest" and method is not None and method.upper() != "GET":
        return True
    return declared


@dataclass(frozen=True, slots=True)
class ToolLabels:
    """What a tool says of its own effects: MCP's ``ToolAnnotations`` hints, read as a record.

    The defaults are the MCP specification's (and Home Assistant's ``llm.ToolAnnotations``'s) for a
    tool that says nothing: it writes, destructively, not idempotently, reaching outside.
    """

    read_only: bool = False
    """It changes nothing (``readOnlyHint``)."""
    destructive: bool = True
    """It may change or delete what exists, not only add (``destructiveHint``)."""
    idempotent: bool = False
    """Calling it again with the same arguments changes nothing more (``idempotentHint``)."""
    open_world: bool = True
    """It reaches beyond the home (``openWorldHint``)."""

    @property
    def destroys(self) -> bool:
        """Whether the label asks for confirmation: destructive, and not read-only."""
        return self.destructive and not self.read_only


UNLABELLED = ToolLabels()
"""The labels of a tool that gives none (the MCP specification's defaults)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """What the gate decided about one call, as the trace records it."""

    verdict: Verdict
    subject: str
    """What was decided on: ``light.turn_on``, ``script.x``, ``GET https://…``, a tool's name."""
    rule: Rule | None = None
    """The rule that held or refused it (None when allowed)."""
    reason: str = ""

    @property
    def allowed(self) -> bool:
        """Whether the call may go ahead for real."""
        return self.verdict == "allow"

    def as_dict(self) -> JsonObject:
        """JSON-ready form for the trace."""
        answer: JsonObject = {"verdict": self.verdict, "subject": self.subject}
        if self.rule is not None:
            answer["rule"] = self.rule
        if self.reason:
            answer["reason"] = self.reason
        return answer


@dataclass(frozen=True, slots=True)
class RenderedTemplate:
    """A template Home Assistant rendered, and what it listened to (its ``listeners``).

    ``listeners`` is Home Assistant's mapping (``all``, ``entities``, ``domains``, ``time``)
    sent with each ``render_template`` result; the gate refuses a result that read what is not
    exposed. Here, below both the Home Assistant link that fills it and the tools that read it.
    """

    text: str
    listeners: Mapping[str, JsonValue] | None


@dataclass(frozen=True, slots=True)
class TemplateReads:
    """What a Home Assistant template listened to while rendering (its ``listeners``)."""

    all: bool = False
    entities: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()

    @classmethod
    def of(cls, listeners: Mapping[str, JsonValue] | None) -> TemplateReads:
        """From the ``listeners`` mapping Home Assistant sends with a rendered template."""
        if listeners is None:
            return cls(all=True)  # nothing reported: assume the worst
        return cls(
            all=bool(listeners.get("all")),
            entities=tuple(texts(listeners.get("entities"))),
            domains=tuple(texts(listeners.get("domains"))),
        )


@dataclass(slots=True)
class Gate:
    """The rules for one call (a tool call, or a local sentence), and what was decided.

    ``exposed`` says whether an entity is exposed to Assist (None: nothing is known, so nothing
    counts as exposed).
    """

    dry_run: bool
    exposed: Callable[[str], bool] | None = None
    decisions: list[Decision] = field(default_factory=list)
    holds: Holds | None = None
    """The turn's confirmation policy and what it held; None: nothing needs confirming."""

    def bind(self, exposed: Callable[[str], bool] | None) -> Gate:
        """The same gate with ``exposed`` as its exposure, sharing its decisions."""
        if exposed is None or exposed is self.exposed:
            return self
        return Gate(self.dry_run, exposed, self.decisions, self.holds)

    def confirm(
        self,
        action: str,
        entity_ids: Sequence[str],
        data: Mapping[str, JsonValue],
        *,
        script: bool = False,
        replay: Callable[[], Awaitable[object]] | None = None,
        groups: Mapping[str, Sequence[str]] | None = None,
        labels: ToolLabels | None = None,
    ) -> Decision:
        """Whether the user must confirm ``action`` on ``entity_ids`` first (then it is held).

        Judged by what the action does to each entity (:mod:`addon.home.actions.impact`):
        ``groups`` are the areas, devices, floors or labels the call names besides
        (``area_id`` → ids), held when the policy covers what it does to any entity in them.
        ``labels`` are what the tool says of itself: one that :attr:`~ToolLabels.destroys` is
        held even where no entry covers it (an entry covering it still decides how it is
        confirmed).
        """
        if self.holds is None or "." not in action:
            return Decision("allow", action)
        domain, service = action.split(".", 1)
        asks = labels is not None and labels.destroys
        try:
            held = self.holds.check(
                domain,
                service,
                entity_ids,
                data,
                script=script,
                replay=replay,
                groups=groups,
                asks=asks,
            )
        except ActorRefusedError as err:
            # The caller never sends it: the refusal is the call's error, in the person's words.
            self._decide(Decision("refuse", action, "actor", err.reason))
            raise
        if held is None:
            return Decision("allow", action)
        names = ", ".join(held.shown_names)
        reason = f"held until the user confirms ({names})"
        if held.why:
            reason += f"; {held.why}"
        if asks and "labelled destructive" not in held.why:
            reason += "; the tool is labelled destructive"
        return self._decide(Decision("confirm", action, "confirmation", reason))

    def _decide(self, decision: Decision) -> Decision:
        self.decisions.append(decision)
        return decision

    def send(self, subject: str, *, kind: str, declared: bool, method: str | None = None) -> bool:
        """Whether a call may be sent for real now; a dry run holds one that acts."""
        if self.dry_run and acts(kind, declared, method):
            self._decide(
                Decision("hold", subject, "dry_run", "a dry run records it without sending it")
            )
            return False
        return True

    def action(self, action: str) -> Decision:
        """Whether the Home Assistant action may be called at all (never a forbidden one)."""
        pattern = forbidden(action)
        if pattern is None:
            return Decision("allow", action)
        return self._decide(
            Decision("refuse", action, "forbidden", f"{action} can harm the host ({pattern})")
        )

    def reaches(
        self,
        action: str,
        entity_ids: Sequence[str],
        data: Mapping[str, JsonValue],
        groups: Mapping[str, Sequence[str]] | None = None,
    ) -> Decision:
        """Whether ``action`` reaches a forbidden action through what it runs.

        A script (``script.turn_on``, ``script.<name>``) or a triggered automation calling
        ``shell_command.*`` is judged by that call, as the policy judges it by its effects
        (:mod:`addon.home.actions.impact`): the list of :data:`FORBIDDEN_ACTIONS` holds for every
        action a tool reaches, whatever the action it names. Without the turn's home (no
        :attr:`holds`) only the name is judged, by :meth:`action`.
        """
        if self.holds is None or "." not in action:
            return Decision("allow", action)
        domain, service = action.split(".", 1)
        impact = self.holds.impacts.of(domain, service, entity_ids, data, groups)
        for effect in impact.effects if impact is not None else ():
            for reached in effect.services or ():
                name = f"{effect.domain}.{reached}"
                pattern = forbidden(name)
                if pattern is not None:
                    reason = f"{action} calls {name}, which can harm the host ({pattern})"
                    return self._decide(Decision("refuse", action, "forbidden", reason))
        return Decision("allow", action)

    def entity(self, entity_id: str) -> Decision:
        """An entity a call reads or acts on, not written by the user: it must be exposed.

        And readable by the turn's actor: a rule that gives it ``none`` refuses it.
        """
        if self.exposed is not None and self.exposed(entity_id):
            return self.readable(entity_id)
        return self._decide(
            Decision("refuse", entity_id, "exposure", f"{entity_id} is not exposed to Assist")
        )

    def readable(self, entity_id: str) -> Decision:
        """Whether the turn's actor may read ``entity_id`` (always, when no rule names them)."""
        access = self.holds.access if self.holds is not None else None
        if access is None or access.may_read(entity_id):
            return Decision("allow", entity_id)
        reason = f"the rules for {access.actor.person_label} / {access.actor.satellite_label} "
        return self._decide(
            Decision("refuse", entity_id, "actor", reason + f"do not let them read {entity_id}")
        )

    def targets(self, subject: str, values: object, literal: frozenset[str]) -> Decision:
        """Every target an action's rendered ``values`` (data and target) name.

        Entities (under ``entity_id``, ``entities``... or any string shaped like one) must be
        exposed unless the user wrote them (``literal``); areas, devices, floors and labels must
        be the user's own.
        """
        for key, value in walk_targets(values):
            if value in literal:
                continue
            if key in TARGET_KEYS:
                return self._decide(
                    Decision(
                        "refuse",
                        subject,
                        "exposure",
                        f"{key} {value!r} did not come from the definition; a target from the "
                        "arguments must be entities exposed to Assist",
                    )
                )
            if not _ENTITY_ID.match(value):
                return self._decide(
                    Decision("refuse", subject, "exposure", f"{value!r} is not an entity id")
                )
            decision = self.entity(value)
            if not decision.allowed:
                return decision
        return Decision("allow", subject)

    def reads(self, subject: str, reads: TemplateReads) -> Decision:
        """A template's result: only when it read nothing but exposed entities."""
        if reads.all:
            return self._decide(
                Decision("refuse", subject, "exposure", "the template read every state")
            )
        if reads.domains:
            domains = ", ".join(sorted(reads.domains))
            return self._decide(
                Decision(
                    "refuse",
                    subject,
                    "exposure",
                    f"the template read every entity of {domains}; name exposed entities instead",
                )
            )
        for entity_id in reads.entities:
            if self.exposed is None or not self.exposed(entity_id):
                reason = f"the template read {entity_id}, which is not exposed to Assist"
                return self._decide(Decision("refuse", subject, "exposure", reason))
            decision = self.readable(entity_id)
            if not decision.allowed:
                return decision
        return Decision("allow", subject)


def walk_targets(values: object, key: str | None = None) -> Iterator[tuple[str, str]]:
    """``(key, value)`` for every target named in rendered action data, at any depth."""
    if isinstance(values, Mapping):
        for name, item in values.items():
            name = str(name)
            if key in ENTITY_KEYS:
                yield key, name  # a mapping keyed by entity ids (scene.apply's entities)
            yield from walk_targets(item, name if name in TARGET_KEYS | ENTITY_KEYS else None)
        return
    if isinstance(values, list | tuple):
        for item in values:
            yield from walk_targets(item, key)
        return
    if not isinstance(values, str):
        return
    parts: Iterable[str] = (
        (part.strip() for part in values.split(",")) if key is not None else (values,)
    )
    for part in parts:
        if not part:
            continue
        if key in TARGET_KEYS:
            yield key, part
        elif key in ENTITY_KEYS:
            yield "entity_id", part
        else:
            match = _ENTITY_ID.match(part)
            if match is not None and match.group(1) in ENTITY_DOMAINS:
                yield "entity_id", part


def executor_for[E](dry_run: bool, live: E | None, virtual: Callable[[], E]) -> E:
    """The executor a turn acts through: the virtual copy in a dry run (or with no live link).

    Local sentences, the intent tools and exposed scripts act only through it, on entities
    that matching finds among the exposed ones: this is their dry-run rule.
    """
    if dry_run or live is None:
        return virtual()
    return live
