"""Who is asking: the person, the satellite and the endpoint behind one turn.

Resolved once per turn from what the endpoint could tell (the Home Assistant user ingress names,
the device and satellite Home Assistant's transcript context names) and the live home model (a
person entity's ``user_id`` attribute names its user; a device's area is the registry's). What
a path cannot tell stays None and is shown as "unknown": nothing is guessed, so a rule about a
person applies only where the person is known (:mod:`addon.home.actions.permissions`).
"""

from __future__ import annotations

from dataclasses import dataclass

from addon.home.model.live import HomeModel
from addon.text import JsonObject

UNKNOWN = "unknown"
"""How the trace, the events and the pages show what a path could not tell."""


@dataclass(frozen=True, slots=True)
class Actor:
    """The actor of one turn; None fields are unknown."""

    endpoint: str
    """Where the request came in: ``wyoming``, ``http``, ``openai``, ``ui``, ``mcp``, ``eval``."""
    user_id: str | None = None
    """The Home Assistant user (ingress names it; no other path does)."""
    user_name: str | None = None
    person_id: str | None = None
    """The person entity whose ``user_id`` is :attr:`user_id` (``person.alice``)."""
    person_name: str | None = None
    device_id: str | None = None
    """The satellite's device (Home Assistant's transcript context, the API's ``device_id``)."""
    satellite_id: str | None = None
    """The ``assist_satellite`` entity, when Home Assistant names it."""
    satellite_name: str | None = None
    area_id: str | None = None
    """The satellite's area (its device's, else its entity's), when the home knows it."""
    area_name: str | None = None

    def as_dict(self) -> JsonObject:
        """The trace's and the events' form: every field, "unknown" for what is not known."""
        return {
            "endpoint": self.endpoint,
            "person": {
                "user_id": self.user_id or UNKNOWN,
                "user_name": self.user_name or UNKNOWN,
                "person_id": self.person_id or UNKNOWN,
                "name": self.person_name or self.user_name or UNKNOWN,
            },
            "satellite": {
                "device_id": self.device_id or UNKNOWN,
                "satellite_id": self.satellite_id or UNKNOWN,
                "name": self.satellite_name or UNKNOWN,
                "area_id": self.area_id or UNKNOWN,
                "area": self.area_name or UNKNOWN,
            },
        }

    @property
    def person_key(self) -> str | None:
        """Whose memories are theirs: the person entity, else the Home Assistant user id."""
        return self.person_id or self.user_id

    @property
    def person_label(self) -> str:
        """The person as the pages show them: a name, else "unknown"."""
        return self.person_name or self.user_name or UNKNOWN

    @property
    def satellite_label(self) -> str:
        """The satellite as the pages show it: its name (and area), else "unknown"."""
        name = self.satellite_name or self.device_id or self.satellite_id
        if name is None:
            return UNKNOWN
        return f"{name} ({self.area_name})" if self.area_name else name


def resolve_actor(
    model: HomeModel | None,
    *,
    endpoint: str,
    user_id: str | None = None,
    user_name: str | None = None,
    device_id: str | None = None,
    satellite_id: str | None = None,
) -> Actor:
    """The actor of a turn, from what the endpoint told and the home model (once per turn)."""
    person_id = person_name = None
    if model is not None and user_id is not None:
        for entity_id in model.index.by_domain.get("person", ()):
            state = model.state(entity_id)
            if state is not None and state.attributes.get("user_id") == user_id:
                person_id = entity_id
                entity = model.entity(entity_id)
                person_name = entity.name if entity is not None else None
                break
    satellite_name = area_id = area_name = None
    if model is not None:
        satellite = model.entity(satellite_id) if satellite_id else None
        if device_id is None and satellite is not None:
            device_id = satellite.device_id
        device = model.devices.get(device_id) if device_id is not None else None
        if device is not None:
            satellite_name = device.name
            area_id = device.area_id
        if satellite is not None:
            satellite_name = satellite_name or satellite.name
            area_id = area_id or satellite.area_id
        area = model.areas.get(area_id) if area_id is not None else None
        area_name = area.name if area is not None else None
    return Actor(
        endpoint=endpoint,
        user_id=user_id,
        user_name=user_name,
        person_id=person_id,
        person_name=person_name,
        device_id=device_id,
        satellite_id=satellite_id,
        satellite_name=satellite_name,
        area_id=area_id,
        area_name=area_name,
    )
