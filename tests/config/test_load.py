"""How settings are built from Supervisor options, flags and the environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from addon.config.load import load_settings
from addon.errors import ConfigError

STANDALONE = ["--ha-url", "http://127.0.0.1:8123", "--ha-token", "long-lived-token"]


def test_supervisor_mode_reads_options_json_and_uses_the_proxy(tmp_path: Path) -> None:
    """With SUPERVISOR_TOKEN set, options come from the file and HA through the supervisor."""
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"llm_model": "llama3.1", "temperature": 0.2}))
    settings = load_settings(
        ["--options", str(options), "--data-dir", str(tmp_path)], {"SUPERVISOR_TOKEN": "sv-token"}
    )
    assert settings.mode == "supervisor"
    assert settings.ha_websocket_url == "ws://supervisor/core/websocket"
    assert settings.ha_token.get_secret_value() == "sv-token"
    assert settings.options.llm_model == "llama3.1"
    assert settings.options.temperature == 0.2


def test_supervisor_mode_ignores_an_ingress_secret(tmp_path: Path) -> None:
    """Under Supervisor the proxy's address alone decides, whatever the environment holds."""
    options = tmp_path / "options.json"
    options.write_text("{}")
    settings = load_settings(
        ["--options", str(options), "--data-dir", str(tmp_path)],
        {"SUPERVISOR_TOKEN": "sv-token", "HOME_AGENT_INGRESS_SECRET": "x" * 32},
    )
    assert settings.ingress_secret is None
    assert settings.trusted_proxies == ("172.30.32.2",)


def test_standalone_reads_the_ingress_secret(tmp_path: Path) -> None:
    """Standalone (the demo), the secret a trusted proxy must send comes from the environment."""
    settings = load_settings(
        [*STANDALONE, "--data-dir", str(tmp_path)], {"HOME_AGENT_INGRESS_SECRET": "s" * 32}
    )
    assert settings.ingress_secret is not None
    assert settings.ingress_secret.get_secret_value() == "s" * 32


def test_a_short_ingress_secret_is_refused(tmp_path: Path) -> None:
    """A guessable secret would make the proxy's address nearly enough again."""
    with pytest.raises(ConfigError, match="at least 16"):
        load_settings(
            [*STANDALONE, "--data-dir", str(tmp_path)], {"HOME_AGENT_INGRESS_SECRET": "x"}
        )


def test_standalone_derives_websocket_url_from_base_url(tmp_path: Path) -> None:
    """A plain http base URL becomes ws://…/api/websocket and …/api for REST."""
    settings = load_settings([*STANDALONE, "--data-dir", str(tmp_path)], {})
    assert settings.mode == "standalone"
    assert settings.ha_websocket_url == "ws://127.0.0.1:8123/api/websocket"
    assert settings.ha_rest_url == "http://127.0.0.1:8123/api"


def test_flags_override_environment_which_overrides_the_file(tmp_path: Path) -> None:
    """Precedence is file < HOME_AGENT_* environment < flags."""
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"llm_model": "from-file", "history_turns": 3}))
    settings = load_settings(
        [*STANDALONE, "--options", str(options), "--llm-model", "from-flag"],
        {"HOME_AGENT_LLM_MODEL": "from-env", "HOME_AGENT_HISTORY_TURNS": "7"},
    )
    assert settings.options.llm_model == "from-flag"
    assert settings.options.history_turns == 7


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"temperature": 3},
            "invalid option 'temperature': Input should be less than or equal to 2",
        ),
        ({"llm_base_url": "ftp://x"}, "invalid option 'llm_base_url': must start with http://"),
        ({"api_token": "short"}, "invalid option 'api_token': must be empty or at least 16"),
        ({"admin_token": "short"}, "invalid option 'admin_token': must be empty or at least 16"),
        (
            {"api_token": "a" * 20, "admin_token": "a" * 20},
            "invalid option 'admin_token': must differ from api_token",
        ),
        ({"log_level": "loud"}, "invalid option 'log_level'"),
        (
            {"llm_base_url": "http://a/v1", "fallback_base_url": "b/v1"},
            "invalid option 'fallback_base_url': must start with http://",
        ),
        (
            {"fallback_base_url": "http://b/v1"},
            "invalid option 'fallback_base_url': needs llm_base_url",
        ),
        (
            {"expert_base_url": "http://c/v1"},
            "invalid option 'expert_base_url': needs llm_base_url",
        ),
        ({"expert_timeout": 1}, "invalid option 'expert_timeout'"),
        ({"no_such_option": 1}, "invalid option 'no_such_option': unknown option"),
    ],
)
def test_invalid_option_names_the_option_and_reason(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    """Each invalid option gives one line naming it and saying why."""
    path = tmp_path / "options.json"
    path.write_text(json.dumps(options))
    with pytest.raises(ConfigError) as caught:
        load_settings([*STANDALONE, "--options", str(path)], {})
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_unreadable_options_file_is_a_clear_error(tmp_path: Path) -> None:
    """A broken JSON file is reported with its path, not a traceback."""
    path = tmp_path / "options.json"
    path.write_text("{not json")
    with pytest.raises(ConfigError, match=r"options.json is not valid JSON"):
        load_settings([*STANDALONE, "--options", str(path)], {})


def test_standalone_without_token_is_refused() -> None:
    """Standalone runs must name a Home Assistant token."""
    with pytest.raises(ConfigError, match="ha_token"):
        load_settings(["--ha-url", "http://127.0.0.1:8123"], {})


def test_masked_settings_never_show_secrets(tmp_path: Path) -> None:
    """The effective configuration shown to users masks every secret."""
    settings = load_settings(
        [*STANDALONE, "--data-dir", str(tmp_path)],
        {"HOME_AGENT_LLM_API_KEY": "sk-very-secret", "HOME_AGENT_API_TOKEN": "a" * 20},
    )
    shown = json.dumps(settings.masked())
    assert "sk-very-secret" not in shown
    assert "long-lived-token" not in shown
    assert "a" * 20 not in shown
    assert settings.masked()["llm_api_key"] == "********"


def test_masked_settings_hide_the_backup_and_expert_keys(tmp_path: Path) -> None:
    """The backup's and the expert's keys are secrets like the main one."""
    settings = load_settings(
        [*STANDALONE, "--data-dir", str(tmp_path)],
        {
            "HOME_AGENT_LLM_BASE_URL": "http://a/v1",
            "HOME_AGENT_FALLBACK_BASE_URL": "http://b/v1",
            "HOME_AGENT_FALLBACK_API_KEY": "sk-backup-secret",
            "HOME_AGENT_EXPERT_BASE_URL": "http://c/v1",
            "HOME_AGENT_EXPERT_API_KEY": "sk-expert-secret",
        },
    )
    shown = json.dumps(settings.masked())
    assert "backup-secret" not in shown
    assert "expert-secret" not in shown
    assert settings.options.fallback_base_url == "http://b/v1"
