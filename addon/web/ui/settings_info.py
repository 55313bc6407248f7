"""What the settings page shows: the effective configuration and what the agent can see.

Values come from :meth:`Settings.masked`, which already replaces every secret; URLs are also
stripped of any user:password part, since people do paste credentials into ``llm_base_url``.
The prompt's size is estimated as characters / 4 (as the history bound does): a tokenizer per
model family is not worth shipping for a number shown to people.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from aiohttp import web
from yarl import URL

from addon import keys
from addon.config.settings import Options

DOCS_URL = "https://github.com/home-agent/home-agent-addon/blob/main/DOCS.md"
CHARS_PER_TOKEN = 4
_MASK = "********"


@dataclass(frozen=True, slots=True)
class SettingRow:
    """One configuration value; ``docs`` links its paragraph in DOCS.md when it is an option."""

    name: str
    value: str
    docs: str | None


@dataclass(frozen=True, slots=True)
class ExposedEntity:
    """An entity the agent is shown."""

    entity_id: str
    name: str
    aliases: tuple[str, ...]
    area: str
    domain: str


@dataclass(frozen=True, slots=True)
class SettingsInfo:
    """Everything the settings page renders."""

    options: list[SettingRow]
    runtime: list[SettingRow]
    home_known: bool
    entities: list[ExposedEntity]
    overview_tokens: int
    prompt_tokens: int
    docs_url: str


def load_settings_info(app: web.Application, now: datetime) -> SettingsInfo:
    """Collect the page; reads only memory (settings, the current home model, the agent)."""
    settings = app[keys.SETTINGS]
    masked = settings.masked()
    option_names = set(Options.model_fields)
    options: list[SettingRow] = []
    runtime: list[SettingRow] = []
    for name, value in masked.items():
        row = SettingRow(
            name,
            _display(value),
            f"{DOCS_URL}#option-{name}" if name in option_names else None,
        )
        (options if name in option_names else runtime).append(row)
    model = app[keys.HOME_SYNC].model
    entities: list[ExposedEntity] = []
    if model is not None:
        for entity in model.exposed_entities():
            area = model.areas.get(entity.area_id) if entity.area_id else None
            entities.append(
                ExposedEntity(
                    entity.entity_id,
                    entity.name,
                    entity.aliases,
                    area.name if area is not None else "",
                    entity.domain,
                )
            )
        entities.sort(key=lambda e: (e.name.casefold(), e.entity_id))
    prompt = app[keys.AGENT].prompt_preview()
    return SettingsInfo(
        options=options,
        runtime=runtime,
        home_known=model is not None,
        entities=entities,
        overview_tokens=_tokens(prompt.static_overview or ""),
        prompt_tokens=_tokens(prompt.system_prompt),
        docs_url=DOCS_URL,
    )


def _tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def _display(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list | tuple):
        return ", ".join(_display(item) for item in value)
    text = str(value)
    if "://" in text and "@" in text:
        try:
            url = URL(text)
        except ValueError:
            return _MASK
        if url.user is not None or url.password is not None:
            return str(url.with_user(None).with_password(None)).replace("://", f"://{_MASK}@", 1)
    return text
