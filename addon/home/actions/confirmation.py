"""Sensitive actions ask first: the confirmation policy and the actions it holds.

Home Assistant's only safeguard for a lock or a garage door is that it is not exposed by
default; once it is, anyone at a satellite (or a model misreading a sentence) can open it. The
user's policy names what must be confirmed: a domain, a device class of a domain, or one
entity, each with the actions it covers, confirmed by a spoken "yes" or by a PIN.

Every action the agent takes passes here, whatever asked for it: local sentences, intent tools and
exposed scripts act through the turn's :class:`ConfirmingExecutor`; the custom ``service`` and
``script`` kinds ask the call's gate (:meth:`addon.home.actions.gate.Gate.confirm`), which asks the
turn's :class:`Holds`. A covered call is not sent: it is kept as a :class:`HeldAction` for the agent
to ask about, and only the user's own next words perform it (:mod:`addon.agent.confirm`). A check is
one dictionary lookup per entity: a turn that is not held pays almost nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from addon.errors import HomeAssistantUnavailableError
from addon.home.actions.executor import Executor, ForwardingExecutor, ScriptRun, ServiceCall
from addon.home.actions.impact import Effect, Impact, Impacts
from addon.home.actions.permissions import Access, Judged
from addon.home.actions.stored import stored_choice
from addon.home.model.live import HomeModel
from addon.text import JsonObject, JsonValue

Scope = Literal["domain", "device_class", "entity"]
Method = Literal["yes", "pin"]
SCOPES: tuple[Scope, ...] = ("domain", "device_class", "entity")
"""The scopes from the weakest to the strongest: where two entries hold the same action on an
entity, the later scope's wins (and of two alike, the later entry). :meth:`ConfirmationPolicy.of`
applies it; the Safety page explains its lines with it."""
METHODS: tuple[Method, ...] = ("yes", "pin")


@dataclass(frozen=True, slots=True)
class PolicyEntry:
    """One line of the policy: what it covers, which actions, and how they are confirmed.

    ``target`` is a domain (``lock``), a device class of a domain (``cover.garage``) or an
    entity id (``lock.front_door``), as ``scope`` says. ``actions`` are the domain's service
    names (``unlock``, ``open_cover``...). ``pin_hash`` is a salted scrypt hash, never the PIN.
    """

    id: int
    scope: Scope
    target: str
    actions: tuple[str, ...]
    method: Method = "yes"
    enabled: bool = True
    pin_hash: str | None = None

    def as_dict(self) -> JsonObject:
        """What the panel and the trace may show (never the PIN's hash)."""
        return {
            "id": self.id,
            "scope": self.scope,
            "target": self.target,
            "actions": list(self.actions),
            "method": self.method,
            "enabled": self.enabled,
        }


class PolicyRow(Protocol):
    """A stored entry as the store hands it over (``addon.store.policy.confirmation_policy``)."""

    @property
    def id(self) -> int:
        """The entry's number."""

    @property
    def scope(self) -> str:
        """``domain``, ``device_class`` or ``entity``."""

    @property
    def target(self) -> str:
        """What it covers."""

    @property
    def actions(self) -> Sequence[str]:
        """The services it covers."""

    @property
    def method(self) -> str:
        """``yes`` or ``pin``."""

    @property
    def enabled(self) -> bool:
        """Whether it holds."""

    @property
    def pin_hash(self) -> str | None:
        """The PIN's salted hash, for a ``pin`` entry."""


@dataclass(frozen=True, slots=True)
class ConfirmationPolicy:
    """The switched-on entries, indexed by what a call is checked against."""

    entries: tuple[PolicyEntry, ...] = ()
    _index: Mapping[tuple[str, str], PolicyEntry] = field(default_factory=dict, repr=False)
    _targets: Mapping[str, PolicyEntry] = field(default_factory=dict, repr=False)
    """Each target with an entry on any action (a PIN entry wins)."""
    _waived: frozenset[tuple[str, str]] = field(default=frozenset(), repr=False)
    """Switched-off domain entries' (domain, action): what a self-labelled destructive call
    defers to (:meth:`waives`)."""

    @classmethod
    def of(cls, entries: Iterable[PolicyEntry]) -> ConfirmationPolicy:
        """The policy of ``entries``: an entity's entry wins over a class's, over a domain's."""
        kept = tuple(entries)
        index: dict[tuple[str, str], PolicyEntry] = {}
        targets: dict[str, PolicyEntry] = {}
        for scope in SCOPES:
            for entry in kept:
                if entry.enabled and entry.scope == scope:
                    for action in entry.actions:
                        index[(entry.target, action)] = entry
                    if entry.actions:
                        targets[entry.target] = _stronger(targets.get(entry.target), entry) or entry
        waived = frozenset(
            (entry.target, action)
            for entry in kept
            if not entry.enabled and entry.scope == "domain"
            for action in entry.actions
        )
        return cls(kept, index, targets, waived - index.keys())

    @classmethod
    def of_rows(cls, rows: Iterable[PolicyRow]) -> ConfirmationPolicy:
        """The policy of stored rows (the store's, read by the agent and the Safety page)."""
        return cls.of(
            PolicyEntry(
                row.id,
                stored_choice(row.scope, SCOPES, f"confirmation entry {row.id}'s scope"),
                row.target,
                tuple(row.actions),
                stored_choice(row.method, METHODS, f"confirmation entry {row.id}'s method"),
                row.enabled,
                row.pin_hash,
            )
            for row in rows
        )

    def waives(self, domain: str, service: str) -> bool:
        """Whether the user switched off a domain entry naming ``domain.service`` (none on does).

        What a call that asks for confirmation itself (a tool labelled destructive) defers to.
        """
        return (domain, service) in self._waived

    @property
    def empty(self) -> bool:
        """Whether nothing is covered (every entry off, or none)."""
        return not self._index

    @property
    def pin_hashes(self) -> tuple[str, ...]:
        """The switched-on entries' PIN hashes, each once: what a PIN-like utterance meets."""
        pins = (entry for entry in self.entries if entry.enabled and entry.method == "pin")
        return tuple(dict.fromkeys(entry.pin_hash for entry in pins if entry.pin_hash))

    def covering(
        self, domain: str, service: str, entity_id: str, device_class: str | None
    ) -> PolicyEntry | None:
        """The entry that holds ``domain.service`` on ``entity_id``, or None."""
        index = self._index
        if not index:
            return None
        found = index.get((entity_id, service))
        if found is None and device_class:
            found = index.get((f"{domain}.{device_class}", service))
        if found is None:
            found = index.get((domain, service))
        return found

    def covering_entity(
        self, domain: str, entity_id: str, device_class: str | None
    ) -> PolicyEntry | None:
        """An entry on ``entity_id`` (itself, its class or its domain) for any action, or None.

        For an effect on the entity that cannot be told (a scene's state we cannot read).
        """
        targets = self._targets
        found = targets.get(entity_id)
        if found is None and device_class:
            found = targets.get(f"{domain}.{device_class}")
        return found if found is not None else targets.get(domain)

    def covering_domain(self, domain: str) -> PolicyEntry | None:
        """An entry on the domain or anything in it, for any action (a PIN entry wins)."""
        found: PolicyEntry | None = None
        for target, entry in self._targets.items():
            if target == domain or target.startswith(f"{domain}."):
                found = _stronger(found, entry)
        return found

    def strongest(self) -> PolicyEntry | None:
        """Any switched-on entry (a PIN entry wins): for a call whose effect cannot be known."""
        found: PolicyEntry | None = None
        for entry in self._targets.values():
            found = _stronger(found, entry)
        return found

    def covering_any(self, domain: str, service: str) -> PolicyEntry | None:
        """An entry that holds ``domain.service`` on some entity of the domain, or None.

        For a call on an area, device, floor or label, whose entities are Home Assistant's to
        find: if any of them could be covered, the call is held (a PIN entry wins).
        """
        found: PolicyEntry | None = None
        for (target, action), entry in self._index.items():
            in_domain = target == domain or target.startswith(f"{domain}.")
            if action == service and in_domain and (found is None or entry.method == "pin"):
                found = entry
        return found


def _stronger(found: PolicyEntry | None, entry: PolicyEntry | None) -> PolicyEntry | None:
    """The entry that asks more: a PIN over a "yes", else the first found."""
    if found is None or (entry is not None and entry.method == "pin" and found.method != "pin"):
        return entry
    return found


@dataclass(frozen=True, slots=True)
class HeldAction:
    """A call the policy held: exactly what is performed if the user confirms."""

    domain: str
    service: str
    entity_ids: tuple[str, ...]
    data: Mapping[str, JsonValue]
    names: tuple[str, ...]
    """The entities' friendly names, for the question (a call on no entity: its service)."""
    method: Method
    pin_hash: str | None = None
    script: bool = False
    """A script run with ``data`` as its variables (``script.turn_on`` on its one entity)."""
    replay: Callable[[], Awaitable[object]] | None = field(default=None, compare=False, repr=False)
    """For a call that is not Home Assistant's (an MCP server's tool): makes it again."""
    why: str = ""
    """What about the call the policy covers (``lock.unlock on lock.front_door``), for the trace."""
    groups: tuple[tuple[str, str], ...] = ()
    """The areas, devices, floors or labels the call names, as (kind, friendly name):
    ``("area", "Hall")``; the question names them in the person's language."""

    @property
    def action(self) -> str:
        """``domain.service``."""
        return f"{self.domain}.{self.service}"

    @property
    def shown_names(self) -> tuple[str, ...]:
        """Every name, groups first as "Hall (area)": what the trace, events and gate show."""
        return (*(f"{name} ({kind})" for kind, name in self.groups), *self.names)

    def as_dict(self) -> JsonObject:
        """What the answer's ``needs_confirmation``, the trace and the events show."""
        return {
            "action": self.action,
            "entity_ids": list(self.entity_ids),
            "names": list(self.shown_names),
            "data": dict(self.data),
            "method": self.method,
        }


@dataclass(frozen=True, slots=True)
class Refused:
    """A call the actor's rule refused: nothing of it was done."""

    action: str
    spoken: str
    """The refusal in the actor's language, as said and as the model reads it."""
    reason: str
    """The trace's English: which rule, what it allows, which effect."""


ACTOR_CONFIRMS = PolicyEntry(0, "domain", "actor", ())
"""What holds a call the actor's rule lets them do only with confirmation (by "yes")."""


@dataclass(slots=True)
class Holds:
    """One turn's policy and the actions it held (shared by the turn's every call).

    A call is judged by its name (an entry on ``script.turn_on`` for one script, on an MCP
    tool) and by its effects (:mod:`addon.home.actions.impact`): what it does to each entity,
    whatever the service is called, through which area, scene, script or automation.
    """

    policy: ConfirmationPolicy
    describe: Callable[[str], tuple[str | None, str]] = lambda entity_id: (None, entity_id)
    """An entity's device class and friendly name (from the home model)."""
    describe_group: Callable[[str, str], str] = lambda kind, group_id: group_id
    """An area's, device's, floor's or label's friendly name, by kind and id."""
    held: list[HeldAction] = field(default_factory=list)
    impacts: Impacts = field(default_factory=lambda: Impacts(None))
    """What calls do in the turn's home (kept per home model and revision by the agent)."""
    access: Access | None = None
    """The rules of the turn's person and satellite (None: no rule names them)."""
    refused: list[Refused] = field(default_factory=list)
    hidden: frozenset[str] = frozenset()
    """What the actor may not read this turn (their rule's ``none``), kept for the trace."""

    def readable(self, model: HomeModel) -> HomeModel:
        """The turn's home as its actor may read it: what they may not read is not exposed.

        Every read of the home in a turn goes through the home this returns (the local path's
        matching and questions, the overview and selection in the model's prompt, the intent
        tools and live context), so an entity the actor's rule gives ``none`` is, for them,
        what Home Assistant calls unexposed: never named with a state, never acted on. The
        home itself when no rule says ``none`` (no cost for a turn no rule restricts).
        """
        access = self.access
        if access is None or not access.hides:
            return model
        self.hidden = access.unreadable(model.index.by_domain)
        return model.hiding(self.hidden)

    def check(
        self,
        domain: str,
        service: str,
        entity_ids: Sequence[str],
        data: Mapping[str, JsonValue],
        *,
        script: bool = False,
        replay: Callable[[], Awaitable[object]] | None = None,
        groups: Mapping[str, Sequence[str]] | None = None,
        asks: bool = False,
    ) -> HeldAction | None:
        """Hold the call if the policy covers its name or any of its effects (kept in :attr:`held`).

        A call on no entity (an MCP server's tool, ``mcp.<tool>``) is held by a domain entry.
        ``groups`` are the areas, devices, floors or labels the call also names (``area_id`` →
        ids), resolved to their entities; confirmed, such a call is made again by ``replay``.
        A call whose effects cannot be known is held when the policy covers anything.
        ``asks``: the call asks for confirmation itself (an MCP tool labelled destructive):
        held, by "yes", where no entry covers it, unless the user switched off a domain entry
        naming it (:meth:`ConfirmationPolicy.waives`).
        """
        access = self.access
        if self.policy.empty and not asks and access is None:
            return None
        policy = self.policy
        covering: PolicyEntry | None = None
        why = ""
        named_groups = tuple(
            (kind, self.describe_group(kind, value))
            for key, values in (groups or {}).items()
            for kind in (key.removesuffix("_id"),)
            for value in values
        )
        names: list[str] = []
        if not entity_ids and not groups:
            covering = policy.covering(domain, service, "", None)
            names.append(service)
        for entity_id in entity_ids:
            device_class, name = self.describe(entity_id)
            names.append(name)
            entry = policy.covering(domain, service, entity_id, device_class)
            if entry is not None and (covering is None or entry.method == "pin"):
                covering = entry
                why = f"{domain}.{service} on {entity_id}"
        impact = self.impacts.of(domain, service, entity_ids, data, groups)
        if access is not None:
            # Raises when the actor's rule refuses any effect; else names one it only confirms.
            confirms = self._actor(access, domain, service, entity_ids, names, impact)
            if confirms and (covering is None or covering.method != "pin"):
                covering = covering or ACTOR_CONFIRMS
                why = why or confirms
        if impact is not None:
            for effect in impact.effects:
                entry, what = self._effect(effect)
                if entry is not None and (covering is None or entry.method == "pin"):
                    covering, why = entry, what
            if impact.unknown:
                entry = policy.strongest()
                if entry is not None and (covering is None or entry.method == "pin"):
                    covering, why = entry, f"cannot be known: {impact.unknown}"
        if covering is None and asks and not policy.waives(domain, service):
            covering = PolicyEntry(0, "domain", domain, (service,))
            why = "the tool is labelled destructive"
        if covering is None:
            return None
        held = HeldAction(
            domain,
            service,
            tuple(entity_ids),
            dict(data),
            tuple(names),
            covering.method,
            covering.pin_hash,
            script,
            replay,
            why,
            named_groups,
        )
        self.held.append(held)
        return held

    def _actor(
        self,
        access: Access,
        domain: str,
        service: str,
        entity_ids: Sequence[str],
        names: Sequence[str],
        impact: Impact | None,
    ) -> str:
        """Judge the call by the actor's rules: raise a refusal, or say what needs a "yes".

        Every entity the call names and every effect on an entity counts; an effect on some
        entity of a domain by the domain's lowest level; a call whose effects cannot be known is
        refused by any rule that restricts anything. Returns why the call needs confirming
        ("" when it does not).
        """
        # Only what is not simply allowed is put in words (a call on every light pays lookups).
        judged: list[tuple[Judged, str]] = []
        effects = impact.effects if impact is not None else ()
        if access.by_domain:
            # The rules look at domains alone: each domain the call touches is judged once.
            domains = {entity_id.partition(".")[0] for entity_id in entity_ids}
            domains.update(effect.domain for effect in effects)
            for touched in domains:
                found = access.judge_domain_of(touched)
                if found.level != "act":
                    judged.append((found, f"{domain}.{service} on some {touched}"))
        else:
            judge = access.judge
            for entity_id in entity_ids:
                found = judge(entity_id)
                if found.level != "act":
                    judged.append((found, f"{domain}.{service} on {entity_id}"))
            named = frozenset(entity_ids)
            for effect in effects:
                if effect.entity_id is None:
                    found = access.judge_domain(effect.domain)
                elif effect.entity_id in named:
                    continue  # judged above, as the call names it
                else:
                    found = judge(effect.entity_id)
                if found.level != "act":
                    what = f"{effect.domain}.{(effect.services or ('*',))[0]}"
                    judged.append((found, f"{what} on {effect.entity_id or 'some entity'}"))
        if not entity_ids and not effects:
            judged.append((access.judge_domain(domain), f"{domain}.{service}"))
        if impact is not None and impact.unknown:
            judged.append((access.judge_unknown(), f"cannot be known: {impact.unknown}"))
        confirms = ""
        for found, why in judged:
            if found.level in ("none", "read"):
                error = access.refuse(found, domain, service, names, why)
                self.refused.append(Refused(f"{domain}.{service}", error.spoken, error.reason))
                raise error
            if found.level == "confirm" and not confirms:
                rule = found.rule
                confirms = f"the rule for {rule.name if rule else 'the actor'} asks first: {why}"
        return confirms

    def _effect(self, effect: Effect) -> tuple[PolicyEntry | None, str]:
        """The entry covering one effect, and the effect in words."""
        policy = self.policy
        domain, entity_id, services = effect.domain, effect.entity_id, effect.services
        if entity_id is None:
            if services is None:
                return policy.covering_domain(domain), f"{domain}.* on some {domain}"
            found: PolicyEntry | None = None
            for service in services:
                found = _stronger(found, policy.covering_any(domain, service))
            return found, f"{domain}.{services[0]} on some {domain}"
        device_class = self.describe(entity_id)[0]
        if services is None:
            return policy.covering_entity(domain, entity_id, device_class), f"sets {entity_id}"
        found = None
        for service in services:
            found = _stronger(found, policy.covering(domain, service, entity_id, device_class))
        return found, f"{domain}.{services[0]} on {entity_id}"


class ConfirmingExecutor(ForwardingExecutor):
    """The turn's executor with the policy in front: a covered call is held, not sent.

    To-do items (Home Assistant's own handler), timers and broadcasts (a handed-over
    sentence) and reads are nothing the policy covers: they are passed on.
    """

    __slots__ = ("_holds",)

    def __init__(self, inner: Executor, holds: Holds) -> None:
        super().__init__(inner)
        self._holds = holds

    async def call_service(self, call: ServiceCall, *, wait: float | None = None) -> None:
        """Call it, unless the policy holds it."""
        if self._holds.check(call.domain, call.service, call.entity_ids, call.data) is None:
            await self._inner.call_service(call, wait=wait)

    async def run_script(
        self, service: str, variables: Mapping[str, JsonValue], *, wait: float
    ) -> ScriptRun:
        """Run the script, unless the policy holds ``script.turn_on`` on it."""
        entity_id = f"script.{service}"
        held = self._holds.check("script", "turn_on", [entity_id], variables, script=True)
        if held is not None:
            return ScriptRun()
        return await self._inner.run_script(service, variables, wait=wait)


async def perform(executor: Executor | None, held: HeldAction, *, dry_run: bool) -> None:
    """Carry out a confirmed action, exactly as it was held (virtually in a dry run).

    A call outside Home Assistant (an MCP server's tool) has no virtual copy: a dry run only
    records it, as the gate's dry-run rule does.
    """
    if held.replay is not None:
        if not dry_run:
            await held.replay()
        return
    if executor is None:
        raise HomeAssistantUnavailableError("Home Assistant is not connected")
    if held.script:
        await executor.run_script(held.entity_ids[0].partition(".")[2], held.data, wait=0.2)
    else:
        await executor.call_service(
            ServiceCall(held.domain, held.service, held.entity_ids, held.data)
        )


_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_pin(pin: str) -> str:
    """A salted scrypt hash of ``pin``: what is stored instead of the PIN."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(pin.encode(), salt=salt, **_SCRYPT)
    return f"scrypt${salt.hex()}${digest.hex()}"


def pin_matches(pin: str, stored: str | None) -> bool:
    """Whether ``pin`` is the PIN ``stored`` was made from (constant time)."""
    if not stored or not pin:
        return False
    try:
        _kind, salt, digest = stored.split("$")
        found = hashlib.scrypt(pin.encode(), salt=bytes.fromhex(salt), **_SCRYPT)
    except ValueError:
        return False
    return hmac.compare_digest(found.hex(), digest)


async def pin_checks(pin: str, stored: Sequence[str | None]) -> tuple[bool, ...]:
    """Whether ``pin`` matches each of ``stored``, hashed in a worker thread.

    One scrypt hash is tens of milliseconds of CPU and 16 MiB: on the event loop, a few PIN
    guesses would stall every other turn, the Wyoming server and the web UI meanwhile.
    """
    return await asyncio.to_thread(lambda: tuple(pin_matches(pin, each) for each in stored))
