"""What the Safety page offers from the live home, and which entry governs each entity.

The pickers list what exists: the domains and device classes of the home's entities, the
exposed entities by name, and each domain's actions (its services as Home Assistant describes
them, :attr:`HomeModel.services`); one list per scope, so the target field
suggests only what the chosen scope can name. The "governs" lines take the winner from the
policy itself (:meth:`ConfirmationPolicy.covering`) and explain it by the policy's own order
(:data:`~addon.home.actions.confirmation.SCOPES`, weakest first; of two alike, the later entry),
never by a second rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from addon.home.actions.confirmation import SCOPES, ConfirmationPolicy, PolicyEntry, Scope
from addon.home.actions.impact import DOMAIN_SERVICES
from addon.home.model.live import HomeModel

COMMON_ACTIONS = ("turn_on", "turn_off", "toggle")
"""What a domain is offered when Home Assistant did not describe its services."""
KNOWN_ACTIONS: dict[str, tuple[str, ...]] = {
    domain: tuple(sorted(services)) for domain, services in DOMAIN_SERVICES.items()
}
"""The services of the default policy's domains, for a home whose services are not known."""
ROUTINE_ACTIONS: dict[str, tuple[str, ...]] = {
    "script": ("turn_on", "toggle"),
    "scene": ("turn_on",),
    "automation": ("trigger", "turn_on", "turn_off"),
}
"""The actions by which the policy holds a routine's run, whatever else its domain offers
(``script``'s services include one per script and ``reload``)."""
SCOPE_WORDS: dict[Scope, str] = {
    "entity": "the entity's own entry",
    "device_class": "its device class's entry",
    "domain": "its domain's entry",
}
"""How a line names an entry's scope when it says why one entry beats another."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One option of a picker: the value stored, and what the person reads."""

    value: str
    label: str


@dataclass(frozen=True, slots=True)
class Pickers:
    """The choices for an entry's target, per scope, and the actions of each domain."""

    domains: tuple[Choice, ...]
    device_classes: tuple[Choice, ...]
    entities: tuple[Choice, ...]
    actions: dict[str, tuple[str, ...]]

    def by_scope(self) -> dict[str, tuple[Choice, ...]]:
        """The target choices of each scope (one suggestion list each on the page)."""
        return {
            "entity": self.entities,
            "device_class": self.device_classes,
            "domain": self.domains,
        }


@dataclass(frozen=True, slots=True)
class Beaten:
    """An enabled entry that also covers an action on an entity, and why it does not hold it."""

    entry: PolicyEntry
    why: str


@dataclass(frozen=True, slots=True)
class Holding:
    """The actions one entry holds on an entity, and the entries it wins over for them."""

    actions: tuple[str, ...]
    winner: PolicyEntry
    beaten: tuple[Beaten, ...]


@dataclass(frozen=True, slots=True)
class Governs:
    """Which entries hold which actions on one exposed entity."""

    entity_id: str
    name: str
    holdings: tuple[Holding, ...]


def pickers(model: HomeModel | None) -> Pickers:
    """The picker choices of ``model`` (the policy's own domains when no home is known).

    Domains and device classes are those of every entity in the home (a lock the assistant
    cannot see can still be opened by an exposed script); entities are the exposed ones.
    """
    domains: set[str] = set() if model is not None else set(DOMAIN_SERVICES)
    classes: set[str] = set()
    entities: list[Choice] = []
    if model is not None:
        for entity_id in model.entity_ids():
            entity = model.entity(entity_id)
            if entity is None:
                continue
            domains.add(entity.domain)
            if entity.device_class:
                classes.add(f"{entity.domain}.{entity.device_class}")
        for entity in model.exposed_entities():
            entities.append(Choice(entity.entity_id, f"{entity.name} ({entity.entity_id})"))
    return Pickers(
        tuple(Choice(domain, domain) for domain in sorted(domains)),
        tuple(Choice(value, value.replace(".", ": ", 1)) for value in sorted(classes)),
        tuple(sorted(entities, key=lambda choice: choice.label.casefold())),
        {domain: actions_of(model, domain) for domain in sorted(domains)},
    )


def actions_of(model: HomeModel | None, domain: str) -> tuple[str, ...]:
    """The actions offered for ``domain``: its services as the live home describes them."""
    if domain in ROUTINE_ACTIONS:
        return ROUTINE_ACTIONS[domain]
    described = model.services.get(domain) if model is not None else None
    return described or KNOWN_ACTIONS.get(domain, COMMON_ACTIONS)


def governing(
    model: HomeModel | None, policy: ConfirmationPolicy, entries: Iterable[PolicyEntry]
) -> list[Governs]:
    """For each exposed entity the policy covers, which entry holds each action, and why."""
    if model is None:
        return []
    enabled = [entry for entry in entries if entry.enabled]
    found: list[Governs] = []
    for entity in model.exposed_entities():
        domain, device_class = entity.domain, entity.device_class
        targets = {entity.entity_id, domain}
        if device_class:
            targets.add(f"{domain}.{device_class}")
        covering = [entry for entry in enabled if entry.target in targets]
        # One line per winner and the entries it beats, with every action they share.
        grouped: dict[tuple[int, tuple[int, ...]], Holding] = {}
        for action in sorted({action for entry in covering for action in entry.actions}):
            winner = policy.covering(domain, action, entity.entity_id, device_class)
            if winner is None:
                continue
            beaten = tuple(
                Beaten(entry, why_beaten(winner, entry))
                for entry in covering
                if action in entry.actions and entry.id != winner.id
            )
            key = (winner.id, tuple(lost.entry.id for lost in beaten))
            held = grouped.get(key)
            actions = (*held.actions, action) if held is not None else (action,)
            grouped[key] = Holding(actions, winner, beaten)
        if grouped:
            found.append(Governs(entity.entity_id, entity.name, tuple(grouped.values())))
    return found


def why_beaten(winner: PolicyEntry, loser: PolicyEntry) -> str:
    """Why ``winner`` holds an action ``loser`` also covers, in the policy's own order."""
    if winner.scope == loser.scope:
        return f"of two entries for the same target the later one holds (#{winner.id})"
    if SCOPES.index(winner.scope) > SCOPES.index(loser.scope):
        return f"{SCOPE_WORDS[winner.scope]} comes before {SCOPE_WORDS[loser.scope]}"
    # covering() chose a weaker scope over a stronger one: the policy and this page disagree.
    raise AssertionError(
        f"entry {winner.id} ({winner.scope}) holds over {loser.id} ({loser.scope})"
    )
