"""The add-on manifest against Supervisor's rules and against the Python options it feeds."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import PurePosixPath
from typing import Any, Literal, get_args, get_origin
from urllib.parse import urlparse

import pytest
import yaml
from annotated_types import Ge, Le
from pydantic import SecretStr

from addon import __version__
from addon.config.load import build_parser, validate_options
from addon.config.settings import Options
from tests.packaging.supervisor import (
    ARCHITECTURES,
    BACKUP_MODES,
    CONFIG_SUFFIXES,
    DISCOVERY_SCRIPT,
    RE_DOCKER_PORT,
    RE_SLUG_FIELD,
    RE_WATCHDOG,
    REPO,
    REQUIRED_CONFIG_KEYS,
    RUN_SCRIPT,
    STARTUP_VALUES,
    config,
    exec_arguments,
    flag_value,
    load_yaml,
    schema_types,
    supervisor_accepts,
)

OPTION_NAMES = list(Options.model_fields)
# What each pydantic annotation must look like in the schema.
SCHEMA_KIND: dict[object, str] = {
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
    SecretStr: "password",
}


def pydantic_default(name: str) -> Any:
    """The default of one option as Supervisor would store it (secrets as plain text)."""
    default = Options.model_fields[name].default
    return default.get_secret_value() if isinstance(default, SecretStr) else default


def pydantic_bounds(name: str) -> tuple[object, object]:
    """The ``ge``/``le`` range pydantic enforces on one option (None where unbounded)."""
    metadata = Options.model_fields[name].metadata
    low = next((m.ge for m in metadata if isinstance(m, Ge)), None)
    high = next((m.le for m in metadata if isinstance(m, Le)), None)
    return low, high


def test_config_has_every_key_supervisor_requires() -> None:
    """name, version, slug, description and arch are present with the types Supervisor wants."""
    for key, kind in REQUIRED_CONFIG_KEYS.items():
        assert isinstance(config().get(key), kind), key


def test_slug_matches_supervisor_pattern() -> None:
    """The slug is one Supervisor accepts, and the one the docs and scripts assume."""
    assert RE_SLUG_FIELD.match(config()["slug"])
    assert config()["slug"] == "home_agent"


def test_arch_lists_only_supervisor_architectures() -> None:
    """Every arch is one of Supervisor's CpuArch values, without repeats."""
    arch = config()["arch"]
    assert set(arch) <= ARCHITECTURES
    assert len(arch) == len(set(arch))


def test_version_equals_package_version() -> None:
    """config.yaml, addon.__version__ and pyproject.toml name the same release."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert config()["version"] == __version__ == pyproject["project"]["version"]


def test_changelog_has_an_entry_for_the_version() -> None:
    """Supervisor shows CHANGELOG.md on update; the current version has a heading there."""
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(__version__)}$", changelog, re.MULTILINE)


def test_url_is_an_absolute_https_url() -> None:
    """The add-on's url passes Supervisor's vol.Url check."""
    parsed = urlparse(config()["url"])
    assert parsed.scheme == "https"
    assert parsed.netloc


def test_addon_is_built_locally_with_s6_init() -> None:
    """No image is named (Supervisor builds the Dockerfile) and Docker's init is off for s6 v3."""
    assert "image" not in config()
    assert config()["init"] is False


def test_startup_value_is_one_supervisor_knows() -> None:
    """The startup stage is a Supervisor AddonStartup value."""
    assert config()["startup"] in STARTUP_VALUES


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_schema_type_matches_supervisor_type_regex(name: str) -> None:
    """Each option's schema type is one Supervisor's RE_SCHEMA_ELEMENT accepts."""
    assert schema_types()[name].kind


def test_no_option_uses_a_bounded_string_type() -> None:
    """str(min,max)/password(min,max) rejected every value before Supervisor PR #7044."""
    for name, text in config()["schema"].items():
        assert not re.match(r"(str|password)\(", text), name


def test_options_and_schema_have_the_same_keys() -> None:
    """Every default has a schema entry and every schema entry a default."""
    assert set(config()["options"]) == set(config()["schema"])


def test_option_names_equal_the_pydantic_fields() -> None:
    """The manifest offers exactly the options Python reads, no more and no fewer."""
    assert list(config()["options"]) == OPTION_NAMES
    assert list(config()["schema"]) == OPTION_NAMES


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_default_equals_the_pydantic_default(name: str) -> None:
    """A fresh install behaves the same with or without options.json."""
    default = config()["options"][name]
    assert default == pydantic_default(name)
    assert type(default) is type(pydantic_default(name))


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_default_passes_supervisor_validation(name: str) -> None:
    """Supervisor would start the add-on with its own defaults."""
    assert supervisor_accepts(schema_types()[name], config()["options"][name])


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_schema_kind_matches_the_pydantic_type(name: str) -> None:
    """Strings are str, secrets password, Literals list(…), numbers and bools their own kind."""
    annotation = Options.model_fields[name].annotation
    expected = "list" if get_origin(annotation) is Literal else SCHEMA_KIND[annotation]
    assert schema_types()[name].kind == expected


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_schema_bounds_match_the_pydantic_range(name: str) -> None:
    """The form refuses exactly the numbers Python would refuse."""
    schema = schema_types()[name]
    assert (schema.low, schema.high) == pydantic_bounds(name)


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_only_empty_default_strings_are_optional(name: str) -> None:
    """Options that default to "" are marked ?, so the form lets them stay empty; no others."""
    assert schema_types()[name].optional == (pydantic_default(name) == "")


def test_list_choices_equal_the_literal_values() -> None:
    """log_level offers the same levels, in the same order, as the pydantic Literal."""
    levels = get_args(Options.model_fields["log_level"].annotation)
    assert schema_types()["log_level"].choices == levels


def test_python_accepts_the_defaults_supervisor_writes() -> None:
    """options.json as Supervisor writes it from the defaults validates to the default Options."""
    written = json.loads(json.dumps(config()["options"]))
    assert validate_options(written) == Options()


def test_python_accepts_options_json_without_the_optional_keys() -> None:
    """The frontend drops a cleared optional field; Python falls back to its default."""
    written = {k: v for k, v in config()["options"].items() if not schema_types()[k].optional}
    assert validate_options(written) == Options()


@pytest.mark.parametrize("name", [n for n in OPTION_NAMES if pydantic_bounds(n) != (None, None)])
def test_python_accepts_every_bound_supervisor_allows(name: str) -> None:
    """The smallest and largest number the form allows also pass pydantic."""
    schema = schema_types()[name]
    cast = float if schema.kind == "float" else int
    for bound in (schema.low, schema.high):
        assert bound is not None
        options = validate_options({name: cast(bound)})
        assert getattr(options, name) == cast(bound)


def test_python_accepts_every_list_choice() -> None:
    """Every log level the form offers is one Python takes."""
    for choice in schema_types()["log_level"].choices:
        assert validate_options({"log_level": choice}).log_level == choice


def test_ports_are_docker_ports_with_descriptions() -> None:
    """Port keys match Supervisor's docker_port rule and each one is described."""
    ports = config()["ports"]
    assert all(RE_DOCKER_PORT.match(key) for key in ports)
    assert set(config()["ports_description"]) == set(ports)


def test_ingress_serves_the_http_port() -> None:
    """Ingress is on, its port is a listed container port and the default of --http-port."""
    assert config()["ingress"] is True
    port = config()["ingress_port"]
    assert f"{port}/tcp" in config()["ports"]
    assert build_parser().parse_args([]).http_port == port


def test_http_api_port_is_unmapped_by_default() -> None:
    """The HTTP API is reachable from outside only once the user maps it."""
    assert config()["ports"][f"{config()['ingress_port']}/tcp"] is None


def test_watchdog_polls_health_on_the_ingress_port() -> None:
    """The watchdog URL passes Supervisor's rule and targets /health on the ingress port."""
    watchdog = config()["watchdog"]
    assert RE_WATCHDOG.match(watchdog)
    assert watchdog == f"http://[HOST]:[PORT:{config()['ingress_port']}]/health"


def test_panel_uses_a_material_design_icon() -> None:
    """panel_icon is an mdi: name and the panel has a title."""
    assert config()["panel_icon"].startswith("mdi:")
    assert config()["panel_title"] == "Home Agent"


def test_discovery_announces_wyoming() -> None:
    """Supervisor only accepts discovery messages for services listed here."""
    assert "wyoming" in config()["discovery"]


def test_wyoming_port_is_the_python_default_and_mapped() -> None:
    """The Wyoming container port is listed in ports and is --wyoming-port's default."""
    port = build_parser().parse_args([]).wyoming_port
    assert f"{port}/tcp" in config()["ports"]


def test_run_script_serves_the_manifest_ports() -> None:
    """The s6 run script passes the ingress port and the listed Wyoming port."""
    arguments = exec_arguments(RUN_SCRIPT)
    assert int(flag_value(arguments, "--http-port")) == config()["ingress_port"]
    assert f"{flag_value(arguments, '--wyoming-port')}/tcp" in config()["ports"]


def test_run_script_flags_are_ones_python_accepts() -> None:
    """Every flag the run script passes parses with the real argument parser."""
    parsed = build_parser().parse_args(exec_arguments(RUN_SCRIPT))
    assert str(parsed.options) == "/data/options.json"
    assert str(parsed.data_dir) == "/data"


def test_discovery_script_announces_the_wyoming_port() -> None:
    """Discovery waits for and announces the port the run script serves Wyoming on."""
    port = flag_value(exec_arguments(RUN_SCRIPT), "--wyoming-port")
    script = DISCOVERY_SCRIPT.read_text(encoding="utf-8")
    assert f'uri "tcp://${{host}}:{port}"' in script
    assert f"bashio::net.wait_for {port} " in script
    assert 'bashio::discovery "wyoming"' in script


def test_backups_are_hot_with_a_pre_command() -> None:
    """Hot backups run backup_pre; cold ones would silently ignore it."""
    assert config()["backup"] in BACKUP_MODES
    assert config()["backup"] == "hot"
    assert isinstance(config()["backup_pre"], str)


@pytest.mark.parametrize("name", ["build.yaml", "config.yaml", "repository.yaml"])
def test_yaml_files_parse_to_mappings(name: str) -> None:
    """Each Supervisor YAML file is a mapping at the top level."""
    assert isinstance(load_yaml(name), dict)


def test_repository_file_has_a_name_url_and_maintainer() -> None:
    """repository.yaml passes Supervisor's SCHEMA_REPOSITORY_CONFIG."""
    repository = load_yaml("repository.yaml")
    assert isinstance(repository["name"], str)
    assert isinstance(repository["maintainer"], str)
    assert urlparse(repository["url"]).scheme == "https"


def test_every_option_is_translated() -> None:
    """translations/en.yaml gives every option, and nothing else, a name and a description."""
    translations = load_yaml("translations/en.yaml")["configuration"]
    assert list(translations) == OPTION_NAMES
    for name, text in translations.items():
        for key in ("name", "description"):
            assert isinstance(text[key], str), (name, key)
            assert text[key].strip(), (name, key)


def test_every_port_is_translated() -> None:
    """translations/en.yaml describes every port under network."""
    network = load_yaml("translations/en.yaml")["network"]
    assert set(network) == set(config()["ports"])
    assert all(isinstance(text, str) and text for text in network.values())


def test_every_option_is_documented() -> None:
    """DOCS.md has one `### Option: name` section per option, in manifest order."""
    docs = (REPO / "DOCS.md").read_text(encoding="utf-8")
    assert re.findall(r"^### Option: `([a-z_]+)`$", docs, re.MULTILINE) == OPTION_NAMES


def test_the_documented_example_lists_every_option_at_its_default() -> None:
    """DOCS.md's example configuration holds every option, at its default but the model's."""
    docs = (REPO / "DOCS.md").read_text(encoding="utf-8")
    found = re.search(r"Example configuration, using OpenAI:\n\n```yaml\n(.*?)```", docs, re.S)
    assert found is not None
    example = yaml.safe_load(found.group(1))
    assert list(example) == OPTION_NAMES
    endpoint = {"llm_base_url", "llm_api_key"}  # the example's point: OpenAI's URL and a key
    differs = {name for name, value in config()["options"].items() if example[name] != value}
    assert differs == endpoint


def test_repository_holds_one_addon_config() -> None:
    """Supervisor reads every config.* outside hidden and rootfs folders as an add-on."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    configs = [
        str(path)
        for path in map(PurePosixPath, listed)
        if path.name.startswith("config.")
        and path.suffix in CONFIG_SUFFIXES
        and not any(part.startswith(".") or part == "rootfs" for part in path.parts)
    ]
    assert configs == ["config.yaml"]
