"""What the Safety page offers from the live home, and which entry governs each entity.

The pickers list what exists: the domains and device classes of the exposed entities (and the
domains the policy is about), the exposed entities by name, and each domain's actions. The
"governs" lines apply the policy's own precedence (:meth:`ConfirmationPolicy.covering`: an
entity's entry over its device class's over its domain's), never a second rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from addon.home.actions.confirmation import ConfirmationPolicy, PolicyEntry
from addon.home.actions.impact import DOMAIN_SERVICES
from addon.home.model.live import HomeModel

COMMON_ACTIONS = ("turn_on", "turn_off", "toggle")
"""What a domain the table does not list is offered."""
ACTIONS: dict[str, tuple[str, ...]] = {
    **{domain: tuple(sorted(services)) for domain, services in DOMAIN_SERVICES.items()},
    "script": ("turn_on", "toggle"),
    "scene": ("turn_on",),
    "automation": ("trigger", "turn_on", "turn_off"),
    "mcp": (),
}


@dataclass(frozen=True, slots=True)
class Choice:
    """One option of a picker: the value stored, and what the person reads."""

    value: str
    label: str


@dataclass(frozen=True, slots=True)
class Pickers:
    """The choices for an entry's target, and the actions of each domain."""

    domains: tuple[Choice, ...]
    device_classes: tuple[Choice, ...]
    entities: tuple[Choice, ...]
    actions: dict[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Governs:
    """Which entry holds which actions on one exposed entity, and the entries it wins over."""

    entity_id: str
    name: str
    lines: tuple[tuple[str, PolicyEntry, tuple[PolicyEntry, ...]], ...]
    """(action, the winning entry, the enabled entries that also cover it and lose)."""


def pickers(model: HomeModel | None) -> Pickers:
    """The picker choices of ``model`` (the policy's own domains when no home is known)."""
    domains: set[str] = set(DOMAIN_SERVICES)
    classes: set[str] = set()
    entities: list[Choice] = []
    for entity in model.exposed_entities() if model is not None else ():
        domains.add(entity.domain)
        if entity.device_class:
            classes.add(f"{entity.domain}.{entity.device_class}")
        entities.append(Choice(entity.entity_id, f"{entity.name} ({entity.entity_id})"))
    return Pickers(
        tuple(Choice(domain, domain) for domain in sorted(domains)),
        tuple(Choice(value, value.replace(".", ": ", 1)) for value in sorted(classes)),
        tuple(sorted(entities, key=lambda choice: choice.label.casefold())),
        {domain: ACTIONS.get(domain, COMMON_ACTIONS) for domain in sorted(domains)},
    )


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
        actions = sorted({a for e in enabled if e.target in targets for a in e.actions})
        lines = []
        for action in actions:
            winner = policy.covering(domain, action, entity.entity_id, device_class)
            if winner is None:
                continue
            losers = tuple(
                entry
                for entry in enabled
                if entry.target in targets and action in entry.actions and entry.id != winner.id
            )
            lines.append((action, winner, losers))
        if lines:
            found.append(Governs(entity.entity_id, entity.name, tuple(lines)))
    return found
