"""The one frozen settings object Home Agent runs with.

Built once at start (:mod:`addon.config.load`) and passed to whoever needs it. Secrets are
``SecretStr`` so that a stray ``repr`` or log line shows ``**********`` instead of the value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationInfo, field_validator

LogLevel = Literal["trace", "debug", "info", "notice", "warning", "error", "fatal"]
RunMode = Literal["supervisor", "standalone"]
# Where memory's embeddings come from: none (recall by words alone), the model endpoint's
# /v1/embeddings, or a small model shipped with the add-on.
EmbeddingSourceName = Literal["off", "endpoint", "local"]

INGRESS_PROXY_ADDRESS = "172.30.32.2"
INGRESS_SECRET_HEADER = "X-Home-Agent-Ingress-Secret"
"""Where the demo's ingress proxy sends the secret it shares with the add-on it started."""
INGRESS_SECRET_ENV = "HOME_AGENT_INGRESS_SECRET"
"""The environment variable the demo hands that secret to the add-on and its proxy in."""


class Options(BaseModel):
    """The add-on options a user sets in the Supervisor UI (``/data/options.json``).

    Every field here has an entry in ``config.yaml`` (``options`` and ``schema``), a name and a
    description in ``translations/en.yaml`` and a paragraph in ``DOCS.md``; a test holds the four
    together.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    llm_base_url: str = Field(default="", max_length=2048)
    llm_api_key: SecretStr = SecretStr("")
    llm_model: str = Field(default="gpt-4o-mini", min_length=1, max_length=200)
    temperature: float = Field(default=0.5, ge=0.0, le=2.0)
    max_tool_iterations: int = Field(default=5, ge=1, le=20)
    request_timeout: int = Field(default=60, ge=5, le=600)
    fallback_base_url: str = Field(default="", max_length=2048)
    fallback_api_key: SecretStr = SecretStr("")
    fallback_model: str = Field(default="", max_length=200)
    """Empty: the same model name as ``llm_model``."""
    expert_base_url: str = Field(default="", max_length=2048)
    expert_api_key: SecretStr = SecretStr("")
    expert_model: str = Field(default="", max_length=200)
    """Empty: the same model name as ``llm_model``."""
    expert_timeout: int = Field(default=60, ge=5, le=600)
    history_turns: int = Field(default=10, ge=0, le=100)
    overview_token_budget: int = Field(default=3000, ge=0, le=200000)
    tool_budget: bool = False
    """Offer only the tools the request's selected entities need (``agent/tool_budget.py``)."""
    session_timeout: int = Field(default=300, ge=0, le=86400)
    confirmation_timeout: int = Field(default=30, ge=5, le=600)
    local_first: bool = True
    local_questions: bool = True
    dry_run: bool = False
    language: str = Field(default="en", min_length=2, max_length=16)
    extra_instructions: str = Field(default="", max_length=8000)
    retention_days: int = Field(default=90, ge=0, le=3650)
    memory: bool = True
    memory_extraction: bool = True
    max_memories: int = Field(default=1000, ge=10, le=100_000)
    memory_embeddings: EmbeddingSourceName = "off"
    embedding_model: str = Field(default="text-embedding-3-small", min_length=1, max_length=200)
    api_token: SecretStr = SecretStr("")
    """Opens the conversation scope on the direct port: the conversation API, ``/v1``, ``/mcp``."""
    admin_token: SecretStr = SecretStr("")
    """Opens everything on the direct port, administration included; empty (off) by default."""
    log_level: LogLevel = "info"

    @field_validator("llm_base_url", "fallback_base_url", "expert_base_url")
    @classmethod
    def _http_url(cls, value: str, info: ValidationInfo[object]) -> str:
        value = value.strip()
        if value and not value.startswith(("http://", "https://")):
            unset = "local-only" if info.field_name == "llm_base_url" else "none"
            raise ValueError(f"must start with http:// or https:// (or be empty for {unset})")
        if value and info.field_name != "llm_base_url" and not info.data.get("llm_base_url"):
            # Fields validate in declaration order: llm_base_url is known (or failed) here.
            raise ValueError("needs llm_base_url: it serves the main model")
        return value.rstrip("/")

    @field_validator("fallback_model", "expert_model")
    @classmethod
    def _stripped(cls, value: str) -> str:
        return value.strip()

    @field_validator("language")
    @classmethod
    def _language_code(cls, value: str) -> str:
        cleaned = value.strip().replace("_", "-")
        if not all(part.isalnum() for part in cleaned.split("-")):
            raise ValueError("must be a language code such as 'en' or 'en-GB'")
        return cleaned

    @field_validator("api_token", "admin_token")
    @classmethod
    def _token_length(cls, value: SecretStr, info: ValidationInfo[object]) -> SecretStr:
        secret = value.get_secret_value()
        if secret and len(secret) < 16:
            raise ValueError("must be empty or at least 16 characters")
        if info.field_name == "admin_token" and secret:
            # Fields validate in declaration order: api_token is known (or failed) here.
            api_token = info.data.get("api_token")
            if isinstance(api_token, SecretStr) and api_token.get_secret_value() == secret:
                # The same value would give every conversation client administration.
                raise ValueError("must differ from api_token")
        return value


class Settings(BaseModel):
    """Everything the process needs: the user's options plus where and how it runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: RunMode
    options: Options
    data_dir: Path
    http_host: str = "0.0.0.0"
    http_port: int = Field(default=8099, ge=0, le=65535)
    wyoming_host: str = "0.0.0.0"
    wyoming_port: int = Field(default=10800, ge=0, le=65535)
    ha_websocket_url: str
    ha_rest_url: str
    ha_token: SecretStr
    supervisor_url: str | None = None
    supervisor_token: SecretStr | None = None
    trusted_proxies: tuple[str, ...] = (INGRESS_PROXY_ADDRESS,)
    ingress_secret: SecretStr | None = None
    """Standalone only (the demo): what a trusted proxy must also send in
    :data:`INGRESS_SECRET_HEADER`, since any local process can connect from a loopback address.
    None: the peer address alone decides, as under Supervisor."""
    webui_dir: Path

    @property
    def database_path(self) -> Path:
        """Where the SQLite file lives; under /data so Supervisor backs it up."""
        return self.data_dir / "home_agent.db"

    def masked(self) -> dict[str, object]:
        """The effective configuration for display, every secret replaced by a mask."""
        shown: dict[str, object] = {}
        for name, value in {
            **self.model_dump(exclude={"options"}),
            **self.options.model_dump(),
        }.items():
            if isinstance(value, SecretStr):
                shown[name] = "********" if value.get_secret_value() else ""
            elif isinstance(value, Path):
                shown[name] = str(value)
            else:
                shown[name] = value
        return shown
