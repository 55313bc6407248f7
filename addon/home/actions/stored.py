"""Reading a stored string into the closed set of values it may hold.

The Safety page's rows (confirmation entries, actor rules) keep their scope, method, level,
kind and preset as text. A value outside the set is something no version of Home Agent wrote:
reading it as a default would quietly change what the policy allows (an unknown method read
as "yes", an unknown level as "none"), so it is refused, naming the row and the value.
"""

from __future__ import annotations

from collections.abc import Iterable

from addon.errors import StoreError


def stored_choice[T: str](value: str, allowed: Iterable[T], what: str) -> T:
    """``value`` as one of ``allowed``; a StoreError naming ``what`` when it is none of them."""
    options = tuple(allowed)
    for option in options:
        if value == option:
            return option
    raise StoreError(f"{what} is {value!r}, which is not one of {', '.join(options)}")
