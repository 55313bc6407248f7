"""A home source that never changes: one model, fresh by definition.

What the agent reads its home from when it is not the live sync: an evaluation's copy of a
task file's home, a benchmark's model. The live one is :class:`addon.ha.home_sync.HomeSync`.
"""

from __future__ import annotations

from dataclasses import dataclass

from addon.home.model.live import HomeModel


@dataclass(slots=True)
class FixedHome:
    """One model (or none), as the live sync holds it between registry changes."""

    model: HomeModel | None

    async def fresh(self) -> HomeModel | None:
        """The model: nothing reports changes to it, so nothing is ever pending."""
        return self.model

    async def recheck_exposure(self) -> HomeModel | None:
        """Nothing to ask again: the fixed model is all there is."""
        return None
