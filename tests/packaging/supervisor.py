"""Supervisor's rules for add-on files, copied from its source, and readers for our add-on files.

The packaging tests check our files against these rules instead of against a running
Supervisor, which cannot run here. Each rule names the file of home-assistant/supervisor it
comes from; when Supervisor changes a rule, update it here and say so in the commit.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml

REPO = Path(__file__).resolve().parents[2]
ROOTFS = REPO / "rootfs"
S6_RC = ROOTFS / "etc" / "s6-overlay" / "s6-rc.d"
RUN_SCRIPT = S6_RC / "home-agent" / "run"
DISCOVERY_SCRIPT = ROOTFS / "etc" / "s6-overlay" / "scripts" / "discovery"

# supervisor/addons/options.py, RE_SCHEMA_ELEMENT: every type an option's schema may name.
RE_SCHEMA_ELEMENT = re.compile(
    r"^(?:"
    r"|bool"
    r"|email"
    r"|url"
    r"|port"
    r"|device(?:\((?P<filter>subsystem=[a-z]+)\))?"
    r"|str(?:\((?P<s_min>\d+)?,(?P<s_max>\d+)?\))?"
    r"|password(?:\((?P<p_min>\d+)?,(?P<p_max>\d+)?\))?"
    r"|int(?:\((?P<i_min>\d+)?,(?P<i_max>\d+)?\))?"
    r"|float(?:\((?P<f_min>[\d\.]+)?,(?P<f_max>[\d\.]+)?\))?"
    r"|match\((?P<match>.*)\)"
    r"|list\((?P<list>.+)\)"
    r")\??$"
)
# supervisor/addons/const.py, RE_SLUG (anchored as validate.py's RE_SLUG_FIELD does).
RE_SLUG_FIELD = re.compile(r"^[-_.A-Za-z0-9]+$")
# supervisor/addons/validate.py, the ATTR_WATCHDOG rule.
RE_WATCHDOG = re.compile(r"^(?:https?|\[PROTO:\w+\]|tcp):\/\/\[HOST\]:(\[PORT:\d+\]|\d+).*$")
# supervisor/addons/validate.py, RE_DOCKER_IMAGE_BUILD: what build.yaml's build_from may name.
RE_DOCKER_IMAGE_BUILD = re.compile(
    r"^([a-zA-Z\-\.:\d{}]+/)*?([\-\w{}]+)/([\-\w{}]+)(:[\.\-\w{}]+)?$"
)
# supervisor/validate.py, docker_port: the keys of ports and ports_description.
RE_DOCKER_PORT = re.compile(r"^\d+(?:/tcp|/udp)?$")
# supervisor/const.py, CpuArch.
ARCHITECTURES = frozenset({"armv7", "armhf", "aarch64", "i386", "amd64"})
# supervisor/const.py, AddonStartup.
STARTUP_VALUES = frozenset({"initialize", "system", "services", "application", "once"})
# supervisor/addons/const.py, AddonBackupMode.
BACKUP_MODES = frozenset({"hot", "cold"})
# supervisor/addons/validate.py, _SCHEMA_ADDON_CONFIG: the keys marked vol.Required.
REQUIRED_CONFIG_KEYS = {"name": str, "version": str, "slug": str, "description": str, "arch": list}
# supervisor/store/data.py, _read_addons_folder: the suffixes of files read as add-on configs.
CONFIG_SUFFIXES = frozenset({".json", ".yaml", ".yml"})


@dataclass(frozen=True, slots=True)
class SchemaType:
    """One option's schema type, parsed the way Supervisor parses it."""

    kind: str
    optional: bool
    low: float | None
    high: float | None
    choices: tuple[str, ...]


def parse_schema_type(text: str) -> SchemaType:
    """Parse ``int(1,20)``, ``str?``, ``list(a|b)``…; a type Supervisor rejects fails the test."""
    match = RE_SCHEMA_ELEMENT.match(text)
    kind = re.match(r"[a-z]*", text)
    if match is None or kind is None or not kind.group():
        raise AssertionError(f"{text!r} is not a Supervisor schema type")
    bounds = {
        side: next((match.group(f"{p}_{side}") for p in "spif" if match.group(f"{p}_{side}")), None)
        for side in ("min", "max")
    }
    return SchemaType(
        kind=kind.group(),
        optional=text.endswith("?"),
        low=float(bounds["min"]) if bounds["min"] is not None else None,
        high=float(bounds["max"]) if bounds["max"] is not None else None,
        choices=tuple(match.group("list").split("|")) if match.group("list") else (),
    )


def supervisor_accepts(schema: SchemaType, value: Any) -> bool:
    """Whether Supervisor's ``AddonOptions._single_validate`` takes ``value`` for this type.

    A little stricter than Supervisor where it coerces (``"5"`` for an int): our defaults
    should be of the right YAML type, not merely coercible.
    """
    if value is None:
        return False
    if schema.kind in {"str", "password"}:
        return isinstance(value, str) and _within(len(value), schema)
    if schema.kind == "int":
        return isinstance(value, int) and not isinstance(value, bool) and _within(value, schema)
    if schema.kind == "float":
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return number and _within(float(value), schema)
    if schema.kind == "bool":
        return isinstance(value, bool)
    if schema.kind == "list":
        return str(value) in schema.choices
    if schema.kind == "url":
        parsed = urlparse(str(value))
        return bool(parsed.scheme and parsed.netloc)
    raise AssertionError(f"no check written for schema type {schema.kind!r}")


def _within(number: float, schema: SchemaType) -> bool:
    return (schema.low is None or number >= schema.low) and (
        schema.high is None or number <= schema.high
    )


@cache
def load_yaml(name: str) -> Any:
    """Parse one of the add-on's YAML files at the repository root (cached; read-only)."""
    return yaml.safe_load((REPO / name).read_text(encoding="utf-8"))


def config() -> dict[str, Any]:
    """The add-on manifest, ``config.yaml``."""
    loaded: dict[str, Any] = load_yaml("config.yaml")
    return loaded


def schema_types() -> dict[str, SchemaType]:
    """Every option's parsed schema type, by option name."""
    return {name: parse_schema_type(text) for name, text in config()["schema"].items()}


def exec_arguments(script: Path) -> list[str]:
    """The arguments after ``exec python3 -m addon`` in an s6 run script."""
    joined = script.read_text(encoding="utf-8").replace("\\\n", " ")
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words[:4] == ["exec", "python3", "-m", "addon"]:
            return words[4:]
    raise AssertionError(f"{script} never runs `exec python3 -m addon`")


def flag_value(arguments: list[str], flag: str) -> str:
    """The value following ``flag`` in an argument list."""
    assert flag in arguments, f"{flag} is not passed"
    return arguments[arguments.index(flag) + 1]
