"""Server-side SVG plots: geometry computed here, drawn by ``_plot.html`` with CSS classes.

No chart library and no script: the dashboard's two plots (latency percentiles as lines, tokens as
bars) are a few dozen SVG elements whose colours come from the stylesheet, so they follow the
light or dark theme and need nothing the Content-Security-Policy forbids.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from addon.store.queries import Bucket

WIDTH = 640
HEIGHT = 200
LEFT, RIGHT, TOP, BOTTOM = 76, 12, 12, 26


@dataclass(frozen=True, slots=True)
class Tick:
    """An axis label at a position in SVG units."""

    position: float
    label: str


@dataclass(frozen=True, slots=True)
class Point:
    """A data point in SVG units, with the tooltip text it shows."""

    x: float
    y: float
    title: str


@dataclass(frozen=True, slots=True)
class Line:
    """One series drawn as a path; ``css_class`` picks its colour."""

    label: str
    css_class: str
    path: str
    points: list[Point]


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar in SVG units."""

    x: float
    y: float
    width: float
    height: float
    title: str


@dataclass(frozen=True, slots=True)
class Plot:
    """Everything ``_plot.html`` draws."""

    title: str
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    lines: list[Line]
    bars: list[Bar]
    empty: bool
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM


def slots(end: datetime, count: int, step: timedelta) -> list[datetime]:
    """The ``count`` bucket starts ending with the one that holds ``end`` (naive local time)."""
    if step >= timedelta(days=1):
        last = end.replace(hour=0, minute=0, second=0, microsecond=0)
    else:
        last = end.replace(minute=0, second=0, microsecond=0)
    return [last - step * (count - 1 - index) for index in range(count)]


def latency_plot(title: str, starts: Sequence[datetime], buckets: Sequence[Bucket]) -> Plot:
    """p50 and p95 of turn duration per bucket as two lines; empty buckets break the lines."""
    by_start = {bucket.start: bucket for bucket in buckets}
    top = nice_ceiling(max((b.p95_ms for b in buckets), default=0.0))
    label = _label_for(starts)
    lines = []
    for name in ("p50", "p95"):
        points = []
        for index, start in enumerate(starts):
            bucket = by_start.get(start)
            if bucket is None:
                continue
            value = bucket.p50_ms if name == "p50" else bucket.p95_ms
            tip = f"{label(start)}: {name} {format_duration(value)} ({bucket.turns} turns)"
            points.append(Point(_x(index, len(starts)), _y(value, top), tip))
        lines.append(Line(name, name, _path(points, starts, by_start), points))
    return Plot(
        title=title,
        x_ticks=_x_ticks(starts, label),
        y_ticks=_y_ticks(top, format_duration),
        lines=lines,
        bars=[],
        empty=not buckets,
    )


def tokens_plot(title: str, starts: Sequence[datetime], buckets: Sequence[Bucket]) -> Plot:
    """Tokens (prompt plus completion) per bucket as bars."""
    by_start = {bucket.start: bucket for bucket in buckets}
    top = nice_ceiling(float(max((b.tokens for b in buckets), default=0)))
    label = _label_for(starts)
    slot_width = (WIDTH - RIGHT - LEFT) / max(len(starts), 1)
    bars = []
    for index, start in enumerate(starts):
        bucket = by_start.get(start)
        if bucket is None or bucket.tokens <= 0:
            continue
        y = _y(bucket.tokens, top)
        bars.append(
            Bar(
                x=round(LEFT + index * slot_width + slot_width * 0.15, 1),
                y=y,
                width=round(slot_width * 0.7, 1),
                height=round(HEIGHT - BOTTOM - y, 1),
                title=f"{label(start)}: {bucket.tokens:,} tokens",
            )
        )
    return Plot(
        title=title,
        x_ticks=_x_ticks(starts, label),
        y_ticks=_y_ticks(top, _format_count),
        lines=[],
        bars=bars,
        empty=not buckets,
    )


def nice_ceiling(value: float) -> float:
    """The smallest 1, 2 or 5 times a power of ten at or above ``value`` (1 for nothing)."""
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for factor in (1.0, 2.0, 5.0, 10.0):
        if value <= factor * power:
            return factor * power
    return 10.0 * power


def format_duration(ms: float) -> str:
    """Milliseconds for an axis or tooltip: "850 ms", "1.2 s"."""
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def _format_count(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def _label_for(starts: Sequence[datetime]) -> Callable[[datetime], str]:
    daily = len(starts) > 1 and starts[1] - starts[0] >= timedelta(days=1)
    return (lambda t: f"{t:%b %d}") if daily else (lambda t: f"{t:%H:00}")


def _x(index: int, count: int) -> float:
    slot = (WIDTH - RIGHT - LEFT) / max(count, 1)
    return round(LEFT + slot * (index + 0.5), 1)


def _y(value: float, top: float) -> float:
    height = HEIGHT - BOTTOM - TOP
    return round(HEIGHT - BOTTOM - height * min(value / top, 1.0), 1)


def _path(points: list[Point], starts: Sequence[datetime], present: dict[datetime, Bucket]) -> str:
    """An SVG path through ``points``, lifting the pen over buckets without turns."""
    commands = []
    point_iter = iter(points)
    pen_down = False
    for start in starts:
        if start not in present:
            pen_down = False
            continue
        point = next(point_iter)
        commands.append(f"{'L' if pen_down else 'M'}{point.x},{point.y}")
        pen_down = True
    return " ".join(commands)


def _x_ticks(starts: Sequence[datetime], label: Callable[[datetime], str]) -> list[Tick]:
    every = max(1, math.ceil(len(starts) / 6))
    return [
        Tick(_x(index, len(starts)), label(start))
        for index, start in enumerate(starts)
        if (len(starts) - 1 - index) % every == 0
    ]


def _y_ticks(top: float, fmt: Callable[[float], str]) -> list[Tick]:
    return [Tick(_y(top * share, top), fmt(top * share)) for share in (0.0, 0.5, 1.0)]
