"""The match constraints an intent's target slots name: one reading for every handler.

Home Assistant's handlers read the ``name``, ``area`` and ``floor`` slots the same way into
``MatchTargetsConstraints``; the service handlers and HassGetState also let a ``domain`` slot
replace their own domains and a ``device_class`` slot narrow them. Each handler adds what it
requires (features, states, a single target). Reading them here, once, keeps the handlers
from drifting apart on what a slot means.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from addon.home.actions.intents import ASSISTANT
from addon.home.actions.slots import SlotValue, slot_text, slot_texts
from addon.home.targeting.targets import MatchTargetsConstraints


def target_constraints(
    slots: Mapping[str, SlotValue],
    *,
    domains: Collection[str] | None = None,
    by_class: bool = True,
    features: int | None = None,
    states: Collection[str] | None = None,
    single_target: bool = False,
) -> MatchTargetsConstraints:
    """The constraints ``slots`` name, with the handler's own ``domains`` and requirements.

    With ``by_class`` a ``domain`` slot replaces ``domains`` and a ``device_class`` slot
    narrows, as Home Assistant's service handlers and HassGetState read them; a handler that
    matches only its own domain (set temperature, relative volume) reads neither.
    """
    if by_class and "domain" in slots:
        domains = set(slot_texts(slots, "domain"))
    classes = (
        set(slot_texts(slots, "device_class")) if by_class and "device_class" in slots else None
    )
    return MatchTargetsConstraints(
        name=slot_text(slots, "name"),
        area_name=slot_text(slots, "area"),
        floor_name=slot_text(slots, "floor"),
        domains=domains,
        device_classes=classes,
        features=features,
        states=states,
        assistant=ASSISTANT,
        single_target=single_target,
    )
