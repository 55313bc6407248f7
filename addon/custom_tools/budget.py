"""The budget of one template render: a deadline, a size cap, and sizes worked out before building.

:mod:`addon.custom_tools.templating` checks these at every place a template can spend unbounded
time or memory. The checks here work out what a growing operation would build (``*`` of a string
or of a list of strings, ``%`` and ``format`` widths, ``join``, ``replace``, padding) and refuse it
past the cap before it is built: building 200 million characters to find them too long would
already be the stall.
"""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_FORMAT_NUMBER = re.compile(r"%(?:\(\w+\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_BRACE_NUMBER = re.compile(r"\{[^{}]*?:[^{}]*?\}")
_NESTED_FIELD = re.compile(r"\{[^{}]*:[^{}]*\{")
_DIGITS = re.compile(r"\d+")
GROWING_METHODS = frozenset(
    {"replace", "join", "ljust", "rjust", "center", "zfill", "expandtabs", "format", "format_map"}
)

Clock = Callable[[], float]


class TemplateLimitError(Exception):
    """A render went past its deadline or its size cap (becomes a TemplateRenderError)."""


@dataclass(slots=True)
class RenderBudget:
    """The deadline and size cap of one render."""

    deadline: float
    max_chars: int
    clock: Clock

    def tick(self) -> None:
        """Stop the render once the deadline has passed."""
        if self.clock() > self.deadline:
            raise TemplateLimitError("took longer than its time limit")

    def sized[T](self, value: T) -> T:
        """``value``, unless it is a string or list longer than the cap."""
        self.check(size_of(value))
        return value

    def check(self, size: int) -> None:
        """Refuse a value of ``size`` characters (worked out before building it) past the cap."""
        if size > self.max_chars:
            raise TemplateLimitError(f"built a value longer than {self.max_chars} characters")


def size_of(value: object) -> int:
    """Characters a value stands for: a string's length; a list's items plus its strings' length."""
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, list | tuple):
        return len(value) + sum(len(item) for item in value if isinstance(item, str | bytes))
    return 0


def check_widths(budget: RenderBudget, numbers: Iterable[str]) -> None:
    """Refuse a format width or precision past the cap, or one taken from the arguments."""
    for number in numbers:
        if number == "*":
            raise TemplateLimitError("a format width taken from the arguments ('*') is not allowed")
        if number and int(number) > budget.max_chars:
            raise TemplateLimitError(f"a format width above {budget.max_chars}")


def check_percent(budget: RenderBudget, text: str) -> None:
    """Refuse a ``%`` format whose width or precision is past the cap, or taken with ``*``."""
    for match in _FORMAT_NUMBER.finditer(text):
        check_widths(budget, (match.group(1) or "", match.group(2) or ""))


def check_braces(budget: RenderBudget, text: str) -> None:
    """Refuse a ``format`` string whose width is past the cap, or nested from the arguments."""
    if _NESTED_FIELD.search(text):
        raise TemplateLimitError("a format width taken from the arguments is not allowed")
    for spec in _BRACE_NUMBER.findall(text):
        check_widths(budget, _DIGITS.findall(spec.split(":", 1)[1]))


def replaced_size(text: str, old: str, new: str, count: int = -1) -> int:
    """The length ``text.replace(old, new, count)`` would have, without building it."""
    found = len(text) + 1 if old == "" else text.count(old)
    if count is not None and count >= 0:
        found = min(found, count)
    return len(text) + found * (len(new) - len(old))


def joined(budget: RenderBudget, separator: str, items: Iterable[object]) -> list[str]:
    """The items as strings, refused once they and the separators pass the cap."""
    parts: list[str] = []
    size = 0
    for item in items:
        budget.tick()
        part = item if isinstance(item, str) else str(item)
        size += len(part) + (len(separator) if parts else 0)
        budget.check(size)
        parts.append(part)
    return parts


def check_method(
    budget: RenderBudget, method: types.BuiltinMethodType, args: tuple[object, ...]
) -> tuple[object, ...]:
    """Refuse a string method call that would build past the cap; the arguments to call with."""
    text = method.__self__
    if not isinstance(text, str):  # only a string's methods grow text
        return args
    name = method.__name__
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str):
        count = args[2] if len(args) > 2 and isinstance(args[2], int) else -1
        budget.check(replaced_size(text, args[0], str(args[1]), count))
    elif name == "join" and args and isinstance(args[0], Iterable):
        return (joined(budget, text, args[0]), *args[1:])
    elif name in ("ljust", "rjust", "center", "zfill") and args and isinstance(args[0], int):
        budget.check(args[0])
    elif name == "expandtabs":
        tab = args[0] if args and isinstance(args[0], int) else 8
        budget.check(len(text) * max(tab, 1))
    elif name in ("format", "format_map"):
        check_braces(budget, text)
    return args
