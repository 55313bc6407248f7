"""Calendars: the fixture's events, each on a day counted from today in Home Assistant's zone.

``attributes.events`` lists ``{summary, start, end, day}``: ``start`` and ``end`` as "HH:MM"
(omitted: an all-day event), ``day`` 0 for today (the default), 1 for tomorrow. The state is
Home Assistant's own (on while an event runs).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from homeassistant.components.calendar import CalendarEntity, CalendarEvent
from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util

from .entity import SyntheticEntity, platform_setup


def _event(spec: dict[str, Any]) -> CalendarEvent:
    day = dt_util.now().date() + dt.timedelta(days=int(spec.get("day") or 0))
    summary = str(spec.get("summary") or "event")
    if not spec.get("start"):
        return CalendarEvent(start=day, end=day + dt.timedelta(days=1), summary=summary)
    zone = dt_util.get_default_time_zone()
    start = dt.datetime.combine(day, dt.time.fromisoformat(str(spec["start"])), zone)
    end = (
        dt.datetime.combine(day, dt.time.fromisoformat(str(spec["end"])), zone)
        if spec.get("end")
        else start + dt.timedelta(hours=1)
    )
    return CalendarEvent(start=start, end=end, summary=summary)


class SyntheticCalendar(SyntheticEntity, CalendarEntity):
    """Read-only events; ``calendar.get_events`` answers from them."""

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        self._events = [_event(spec) for spec in attributes.get("events") or ()]

    @property
    def event(self) -> CalendarEvent | None:
        now = dt_util.now()
        upcoming = [e for e in self._events if e.end_datetime_local > now]
        return min(upcoming, key=lambda e: e.start_datetime_local) if upcoming else None

    async def async_get_events(
        self, hass: HomeAssistant, start_date: dt.datetime, end_date: dt.datetime
    ) -> list[CalendarEvent]:
        return [
            e
            for e in self._events
            if e.start_datetime_local < end_date and e.end_datetime_local > start_date
        ]


async_setup_entry = platform_setup("calendar", SyntheticCalendar)
