"""The model of the custom tool editor page: what ``tool.html`` shows, typed.

The views in :mod:`.tools` build an :class:`EditorPage` (a new tool's editor, or a saved tool's
with try it and versions) and hand its names to the template; a try's runner record is read
once, here, into :class:`TryShown`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import fields as dc_fields

from addon.custom_tools.trial import NOTHING_RAN, Trial
from addon.store.tools import custom_tools as stored
from addon.text import JsonObject
from addon.web.ui import tool_editor as editor
from addon.web.ui import tool_text


@dataclass(frozen=True, slots=True)
class TryShown:
    """A try as the editor shows it: what the model would get, and what was sent and came back."""

    for_model: JsonObject
    error: str | None
    duration_ms: float
    dry_run: bool
    sent: bool
    request: object
    """The rendered request (the runner's record, secrets masked), None if nothing was built."""
    response: object
    steps: list[object]
    held: list[JsonObject]
    """What a turn would have held for the user's confirmation (the gate's decisions): not done."""

    @classmethod
    def of(cls, trial: Trial) -> TryShown:
        """The try's trial, read for the page."""
        run = trial.run or NOTHING_RAN
        return cls(
            for_model=trial.result,
            error=trial.error,
            duration_ms=trial.duration_ms,
            dry_run=trial.dry_run,
            sent=run.sent,
            request=run.request,
            response=run.response,
            steps=list(run.steps),
            held=[decision.as_dict() for decision in trial.held],
        )


@dataclass(frozen=True, slots=True)
class EditorPage:
    """What the editor page shows: a new tool's editor, or a saved tool's with try it and versions.

    The defaults are a new tool's: no problems, no versions, no arguments, no try.
    """

    tool: stored.StoredTool | None
    source: str
    fields: Mapping[str, str]
    originals: Mapping[str, str] | None = None
    """The fields as the text had them, so a field the user changed wins over the text; None
    when they are the fields shown."""
    problems: Sequence[editor.Problem] = ()
    notice: str = ""
    template_warnings: Sequence[str] = ()
    versions: Sequence[stored.ToolVersion] = ()
    arguments: Sequence[editor.ArgumentField] = ()
    run: TryShown | None = None
    try_problems: Sequence[str] = ()
    dry_run: bool = True
    dry_run_option: bool = False

    def context(self) -> dict[str, object]:
        """The page's names as ``tool.html`` reads them."""
        names: dict[str, object] = {f.name: getattr(self, f.name) for f in dc_fields(self)}
        names["originals"] = self.fields if self.originals is None else self.originals
        names["kinds"] = editor.KINDS
        # The settings each kind starts with, for the script that swaps them as the kind changes.
        names["kind_examples"] = tool_text.examples_for_page()
        names["field_problems"] = {
            p.common_field: p.message for p in self.problems if p.common_field
        }
        return names
