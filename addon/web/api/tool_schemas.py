"""The custom tools API's bodies as pydantic models, for its OpenAPI description.

The handlers in :mod:`addon.web.api.tools` read their few fields by hand (a definition is checked
by the definition parser, which reports every problem with its path); these models describe the
same shapes, field for field, so clients can generate code from the document.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, PlainSerializer

from addon.text import JsonObject

IsoTime = Annotated[datetime, PlainSerializer(datetime.isoformat, return_type=str)]
"""A stored time as the API writes it: ``datetime.isoformat()`` (``+00:00`` where pydantic's own
JSON would write ``Z``), so an answer can be read straight from the store's record
(``model_validate(record, from_attributes=True)``) and still say each time as it always has."""


class ToolSaveIn(BaseModel):
    """A definition to save (create, or the next version): as an object or as editor text."""

    definition: JsonObject | None = Field(
        default=None, description="The definition as an object (see DOCS.md, Custom tools)."
    )
    source: str | None = Field(
        default=None, description="The definition as YAML or JSON text, when no `definition`."
    )
    note: str = Field(default="", max_length=500, description="Why this version was saved.")


class ToolVersionOut(BaseModel):
    """One saved version of a tool."""

    number: int
    created_at: IsoTime
    author: str | None = Field(description="The Home Assistant user, through ingress only.")
    note: str
    definition: JsonObject


class ToolOut(BaseModel):
    """A tool with its current version."""

    id: int
    name: str
    enabled: bool
    deleted_at: IsoTime | None
    created_at: IsoTime
    updated_at: IsoTime
    version: ToolVersionOut
    definition: JsonObject
    source: str = Field(description="The definition as YAML, for the editor.")


class ToolSummaryOut(BaseModel):
    """A tool as the list shows it, with its use by the model."""

    id: int
    name: str
    kind: str
    description: str
    enabled: bool
    deleted_at: IsoTime | None
    version: int
    updated_at: IsoTime
    last_used_at: IsoTime | None
    calls: int
    errors: int
    error_rate: float


class ToolListOut(BaseModel):
    """Every tool (``?deleted=1`` includes the deleted ones)."""

    tools: list[ToolSummaryOut]


class ToolVersionListOut(BaseModel):
    """Every version of a tool, newest first."""

    versions: list[ToolVersionOut]


class ToolDiffOut(BaseModel):
    """A unified diff between two versions."""

    from_: int = Field(alias="from")
    to: int
    format: Literal["yaml", "json"]
    diff: str


class ToolEnabledIn(BaseModel):
    """Offer the tool to the model or not."""

    enabled: bool


class ToolRestoreIn(BaseModel):
    """The version to make current again (saved as a new version)."""

    version: int


class ToolTryIn(ToolSaveIn):
    """Run a tool once; ``/api/tools/try`` also takes the definition, as for a save."""

    arguments: JsonObject | str = Field(
        default_factory=dict,
        description="The arguments as an object, or the text a model would send (it is repaired).",
    )
    dry_run: bool = Field(
        default=False,
        description=(
            "Render an acting tool's request without sending it; read-only tools still run. "
            "Forced on by the dry_run option."
        ),
    )


class ToolTryOut(BaseModel):
    """What one try did; secrets masked throughout."""

    name: str
    arguments: JsonObject = Field(description="The arguments after repair.")
    repaired: bool
    dry_run: bool
    sent: bool = Field(
        description="False when nothing was sent (dry run, held, or refused arguments)."
    )
    request: JsonObject | None = Field(description="method, url, headers, body as rendered.")
    response: JsonObject | None = Field(description="status, headers, body, truncated.")
    steps: list[JsonObject] = Field(description="A composite's steps, in order.")
    held: list[JsonObject] = Field(
        description=(
            "What a conversation would hold for the user's confirmation (the confirmation "
            "policy), each as the gate decided it: verdict, subject, rule and reason. Never "
            "performed by a try."
        )
    )
    result: JsonObject = Field(description="What the model would receive.")
    error: str | None
    duration_ms: float


class ToolImportIn(BaseModel):
    """Extended OpenAI Conversation function YAML (a list of ``{spec, function}``)."""

    text: str
    preview: bool = Field(default=False, description="Convert and check only; save nothing.")


class RefusedOut(BaseModel):
    """An entry that was not carried over, and why."""

    name: str
    reason: str


class ImportWarningOut(BaseModel):
    """An imported entry worth a look (a template reading ``states`` directly), and why."""

    name: str
    warning: str


class ImportedOut(BaseModel):
    """A tool an import saved."""

    id: int
    name: str


class ToolImportOut(BaseModel):
    """What an import saved and what it refused (a preview answers with ``definitions``)."""

    imported: list[ImportedOut] = Field(default_factory=list)
    definitions: list[JsonObject] | None = Field(
        default=None, description="Preview only: the definitions that would be saved."
    )
    refused: list[RefusedOut]
    warnings: list[ImportWarningOut] = Field(default_factory=list)


class ToolExportOut(BaseModel):
    """Tools as Extended OpenAI Conversation YAML, and those that have no equivalent there."""

    text: str
    not_exported: list[RefusedOut]


class SecretIn(BaseModel):
    """A secret's value: written, never read back."""

    value: str = Field(min_length=1)


class SecretNameOut(BaseModel):
    """A secret by name (an answer never holds a value)."""

    name: str


class SecretOut(SecretNameOut):
    """A secret by name and last change."""

    updated_at: IsoTime | None


class SecretListOut(BaseModel):
    """Every secret by name."""

    secrets: list[SecretOut]
