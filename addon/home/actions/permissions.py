"""Rules per person and per satellite: what the turn's actor may act on, read, or only confirm.

Home Assistant cannot restrict what a user may do by voice, and a satellite in a child's room
reaches the front door like any other. The Safety page keeps one rule per person (a person
entity or a Home Assistant user) and per satellite (a device): a level per domain, area or
entity, a default for the rest, and for a satellite one switch that keeps it to its own area.
The turn's :class:`Access` (the rules that apply to its :class:`~addon.home.actions.actor.Actor`)
is judged by the gate's :class:`~addon.home.actions.confirmation.Holds` on every effect of
every call, whatever the path: one lookup per entity, and nothing at all for a turn no rule
names.

A satellite rule is a rule about a room, not about a person: a voice is not proof of identity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, Protocol

from addon.errors import ActorRefusedError
from addon.home.actions.actor import Actor
from addon.home.actions.stored import stored_choice
from addon.i18n.permissions import refusal

Level = Literal["none", "read", "confirm", "act"]
LEVELS: tuple[Level, ...] = ("none", "read", "confirm", "act")
"""From the least to the most allowed: where two entries or two rules meet, the lower wins."""
_RANK: Mapping[str, int] = MappingProxyType({level: rank for rank, level in enumerate(LEVELS)})
Kind = Literal["person", "satellite"]
KINDS: tuple[Kind, ...] = ("person", "satellite")
AREA_PREFIX = "area:"
"""A target naming an area: ``area:kids_room``."""

ROUTINES = frozenset({"scene", "script", "automation"})
"""A routine is judged by what it does to each entity (its effects), not by where it sits, so
the own-area switch does not refuse the routine itself."""

GUEST: Mapping[str, Level] = MappingProxyType(
    {
        "light": "act",
        "media_player": "act",
        "scene": "act",
        "fan": "act",
        "remote": "act",
        "todo": "act",
        "climate": "read",
        "water_heater": "read",
        "lock": "read",
        "alarm_control_panel": "read",
        "cover": "read",
        "valve": "read",
    }
)
"""The guest preset: lights, music, scenes, fans, remotes and lists; the heating, locks, the
alarm and covers only read. Everything else (the default) is read only. A scene is judged by
what it does: one that unlocks a door is refused like the unlock."""
PRESETS: Mapping[str, tuple[Level, Mapping[str, Level]]] = MappingProxyType(
    {"guest": ("read", GUEST)}
)
"""Each preset's default and targets; a rule's own targets are laid over them."""


def lower(first: Level, second: Level) -> Level:
    """The less allowed of two levels."""
    return first if _RANK[first] <= _RANK[second] else second


class RuleRow(Protocol):
    """A stored rule as the store hands it over (``addon.store.policy.actor_rules``)."""

    @property
    def id(self) -> int:
        """The rule's number."""

    @property
    def kind(self) -> str:
        """``person`` or ``satellite``."""

    @property
    def subject(self) -> str:
        """A person entity id or a Home Assistant user id; a device id."""

    @property
    def name(self) -> str:
        """What the refusal calls them ("Kids Room Speaker")."""

    @property
    def preset(self) -> str | None:
        """``guest``, or None."""

    @property
    def default(self) -> str:
        """The level of what no target names."""

    @property
    def targets(self) -> Mapping[str, str]:
        """Domain, ``area:<id>`` or entity id → level."""

    @property
    def own_area(self) -> bool:
        """A satellite acts only in its own area."""

    @property
    def enabled(self) -> bool:
        """Whether it applies."""


@dataclass(frozen=True, slots=True)
class ActorRule:
    """One person's or one satellite's rule, its preset already laid under its targets."""

    id: int
    kind: Kind
    subject: str
    name: str
    default: Level = "act"
    targets: Mapping[str, Level] = field(default_factory=dict)
    own_area: bool = False
    enabled: bool = True
    preset: str | None = None

    @classmethod
    def of_row(cls, row: RuleRow) -> ActorRule:
        """The rule of a stored row (a preset's default and targets under the row's own)."""
        what = f"actor rule {row.id}'s"
        default = stored_choice(row.default, LEVELS, f"{what} default level")
        targets: dict[str, Level] = {}
        if row.preset is not None:
            default, preset_targets = PRESETS[stored_choice(row.preset, PRESETS, f"{what} preset")]
            targets.update(preset_targets)
        targets.update(
            {
                target: stored_choice(level, LEVELS, f"{what} level for {target}")
                for target, level in row.targets.items()
            }
        )
        return cls(
            row.id,
            stored_choice(row.kind, KINDS, f"{what} kind"),
            row.subject,
            row.name or row.subject,
            default,
            MappingProxyType(targets),
            row.own_area and row.kind == "satellite",
            row.enabled,
            row.preset,
        )

    def level(self, entity_id: str, area_id: str | None, home_area: str | None) -> Level:
        """What this rule lets the actor do to ``entity_id`` (in ``area_id``).

        An entity's own entry wins; else the lower of its domain's and its area's entries; else
        the default. With :attr:`own_area`, anything outside ``home_area`` (the satellite's,
        None when unknown: then everything is outside) is read at most.
        """
        targets = self.targets
        found = targets.get(entity_id)
        domain = entity_id.partition(".")[0]
        if found is None:
            by_domain = targets.get(domain)
            by_area = targets.get(AREA_PREFIX + area_id) if area_id else None
            if by_domain is not None and by_area is not None:
                found = lower(by_domain, by_area)
            else:
                found = by_domain or by_area or self.default
        if self.own_area and domain not in ROUTINES and (home_area is None or area_id != home_area):
            found = lower(found, "read")
        return found

    def domain_level(self, domain: str) -> Level:
        """The least this rule allows on some entity of ``domain`` (an entity it cannot name)."""
        found = self.targets.get(domain, self.default)
        for target, level in self.targets.items():
            if target.startswith((AREA_PREFIX, f"{domain}.")):
                found = lower(found, level)
        if self.own_area and domain not in ROUTINES:
            found = lower(found, "read")
        return found

    @property
    def by_domain(self) -> bool:
        """Whether an entity's level depends on its domain alone (no entity, area or own area)."""
        return not self.own_area and not any(
            "." in target or target.startswith(AREA_PREFIX) for target in self.targets
        )

    @property
    def hides(self) -> bool:
        """Whether the rule keeps anything from being read (a ``none`` anywhere)."""
        return self.default == "none" or "none" in self.targets.values()

    @property
    def restricts(self) -> bool:
        """Whether the rule allows less than everything anywhere."""
        return (
            self.own_area
            or self.default != "act"
            or any(level != "act" for level in self.targets.values())
        )


@dataclass(frozen=True, slots=True)
class ActorRules:
    """Every switched-on rule, by whom it names: what a turn's :class:`Access` is taken from."""

    rules: tuple[ActorRule, ...] = ()
    _by_subject: Mapping[tuple[str, str], tuple[ActorRule, ...]] = field(
        default_factory=dict, repr=False
    )

    @classmethod
    def of(cls, rules: Iterable[ActorRule]) -> ActorRules:
        """The rules, indexed by (kind, subject)."""
        kept = tuple(rules)
        index: dict[tuple[str, str], tuple[ActorRule, ...]] = {}
        for rule in kept:
            if rule.enabled:
                key = (rule.kind, rule.subject)
                index[key] = (*index.get(key, ()), rule)
        return cls(kept, MappingProxyType(index))

    @classmethod
    def of_rows(cls, rows: Iterable[RuleRow]) -> ActorRules:
        """The rules of stored rows (the store's, read by the agent and the Safety page)."""
        return cls.of(ActorRule.of_row(row) for row in rows)

    def applying(self, actor: Actor) -> tuple[ActorRule, ...]:
        """The rules naming the actor's person (entity or user) or satellite (device or entity)."""
        if not self._by_subject:
            return ()
        found: list[ActorRule] = []
        for kind, subject in (
            ("person", actor.person_id),
            ("person", actor.user_id),
            ("satellite", actor.device_id),
            ("satellite", actor.satellite_id),
        ):
            if subject is not None:
                found.extend(self._by_subject.get((kind, subject), ()))
        return tuple({rule.id: rule for rule in found}.values())

    def access(
        self, actor: Actor, area_of: Callable[[str], str | None], language: str
    ) -> Access | None:
        """The turn's access for ``actor``; None when no rule applies (nothing to check)."""
        rules = self.applying(actor)
        if not rules:
            return None
        return Access(actor, rules, area_of, language)


@dataclass(frozen=True, slots=True)
class Judged:
    """What the rules let the actor do to one entity, and the rule that said the least."""

    level: Level
    rule: ActorRule | None


@dataclass(frozen=True, slots=True)
class Access:
    """The rules that apply to one turn's actor, with where each entity is (the home model)."""

    actor: Actor
    rules: tuple[ActorRule, ...]
    area_of: Callable[[str], str | None]
    language: str
    _seen: dict[str, Judged] = field(default_factory=dict, repr=False, compare=False)
    """What was judged this turn, by entity (or by domain, when the rules look at no more)."""
    _by_domain: bool = field(default=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_domain", all(rule.by_domain for rule in self.rules))

    @property
    def by_domain(self) -> bool:
        """Whether the rules look at an entity's domain alone (then judge by domain)."""
        return self._by_domain

    def judge(self, entity_id: str) -> Judged:
        """The lowest level any applying rule gives ``entity_id`` (each judged once a turn)."""
        key = entity_id.partition(".")[0] if self._by_domain else entity_id
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = self._judge(entity_id)
        return found

    def judge_domain_of(self, domain: str) -> Judged:
        """The level of every entity of ``domain``, when :attr:`by_domain` (rules of domains)."""
        return self.judge(f"{domain}.")

    def _judge(self, entity_id: str) -> Judged:
        area_id = None if self._by_domain else self.area_of(entity_id)
        found: Judged = Judged("act", None)
        for rule in self.rules:
            level = rule.level(entity_id, area_id, self.actor.area_id)
            if _RANK[level] < _RANK[found.level]:
                found = Judged(level, rule)
        return found

    def judge_domain(self, domain: str) -> Judged:
        """The lowest level on some entity of ``domain`` (an effect whose entity is not known)."""
        found: Judged = Judged("act", None)
        for rule in self.rules:
            level = rule.domain_level(domain)
            if _RANK[level] < _RANK[found.level]:
                found = Judged(level, rule)
        return found

    def judge_unknown(self) -> Judged:
        """A call whose effects cannot be known: refused by any rule that restricts anything."""
        for rule in self.rules:
            if rule.restricts:
                return Judged("none", rule)
        return Judged("act", None)

    def may_read(self, entity_id: str) -> bool:
        """Whether the actor may read ``entity_id`` (any level but ``none``)."""
        return self.judge(entity_id).level != "none"

    @property
    def hides(self) -> bool:
        """Whether any applying rule keeps something from being read (else nothing to ask)."""
        return any(rule.hides for rule in self.rules)

    def unreadable(self, by_domain: Mapping[str, Iterable[str]]) -> frozenset[str]:
        """The entities of ``by_domain`` (domain → entity ids) the actor may not read.

        Rules of domains alone are judged once per domain; others once per entity (a turn's
        judgements are kept). Nothing is judged when no rule says ``none`` anywhere.
        """
        if not self.hides:
            return frozenset()
        if self._by_domain:
            return frozenset(
                entity_id
                for domain, entity_ids in by_domain.items()
                if self.judge_domain_of(domain).level == "none"
                for entity_id in entity_ids
            )
        return frozenset(
            entity_id
            for entity_ids in by_domain.values()
            for entity_id in entity_ids
            if self.judge(entity_id).level == "none"
        )

    def refuse(
        self, judged: Judged, domain: str, service: str, names: Sequence[str], why: str
    ) -> ActorRefusedError:
        """The refusal of ``domain.service`` on ``names``, in the actor's language."""
        rule = judged.rule
        who = rule.name if rule is not None else self.actor.satellite_label
        spoken = refusal(who, domain, service, names, self.language)
        kind = rule.kind if rule is not None else "actor"
        reason = f"the {kind} rule for {who} allows {judged.level} only: {why}"
        return ActorRefusedError(spoken, reason)
