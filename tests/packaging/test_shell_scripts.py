"""The s6-overlay v3 services under rootfs/: well-formed, executable and shellcheck-clean."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.packaging.supervisor import ROOTFS, S6_RC

SHELLCHECK_TIMEOUT_S = 60
# bashio scripts start `#!/command/with-contenv bashio`, a shebang shellcheck cannot read;
# each script also says `# shellcheck shell=bash` for editors.
BASHIO_SHEBANG = "#!/command/with-contenv bashio"
SERVICE_TYPES = frozenset({"longrun", "oneshot", "bundle"})
# Defined by s6-overlay itself, not in our tree: `base` (dependency of every service) and
# `user` (the bundle whose contents.d lists what starts).
S6_OVERLAY_SERVICES = frozenset({"base", "user"})


def scripts() -> list[Path]:
    """Every file under rootfs/ that starts with a shebang."""
    return sorted(
        path for path in ROOTFS.rglob("*") if path.is_file() and path.read_bytes().startswith(b"#!")
    )


def services() -> dict[str, Path]:
    """Our s6-rc service definitions by name (s6-overlay's own `user` bundle excluded)."""
    return {
        path.name: path
        for path in sorted(S6_RC.iterdir())
        if path.is_dir() and path.name not in S6_OVERLAY_SERVICES
    }


def service_type(service: Path) -> str:
    """The content of a service's ``type`` file."""
    return (service / "type").read_text(encoding="utf-8").strip()


def script_id(path: Path) -> str:
    """A readable test id: the script's path under rootfs/."""
    return str(path.relative_to(ROOTFS))


def test_rootfs_has_the_expected_scripts() -> None:
    """The run, finish and discovery scripts are all found (so the checks below run on them)."""
    assert {script_id(path) for path in scripts()} == {
        "etc/s6-overlay/s6-rc.d/home-agent/run",
        "etc/s6-overlay/s6-rc.d/home-agent/finish",
        "etc/s6-overlay/scripts/discovery",
    }


@pytest.mark.parametrize("script", scripts(), ids=script_id)
def test_script_passes_shellcheck(script: Path) -> None:
    """shellcheck, as bash, finds nothing at any severity."""
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.fail("shellcheck is not installed (apt-get install shellcheck); CI installs it")
    result = subprocess.run(
        [shellcheck, "--norc", "--shell=bash", "--severity=style", str(script)],
        capture_output=True,
        text=True,
        timeout=SHELLCHECK_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("script", scripts(), ids=script_id)
def test_script_is_executable(script: Path) -> None:
    """s6 and execline exec the script directly, so it needs its executable bits."""
    assert os.access(script, os.X_OK)
    assert script.stat().st_mode & 0o111 == 0o111


@pytest.mark.parametrize("script", scripts(), ids=script_id)
def test_script_runs_under_bashio_with_the_container_environment(script: Path) -> None:
    """with-contenv passes SUPERVISOR_TOKEN on; bashio gives logging and the Supervisor API."""
    lines = script.read_text(encoding="utf-8").splitlines()
    assert lines[0] == BASHIO_SHEBANG
    assert "# shellcheck shell=bash" in lines


@pytest.mark.parametrize("name", sorted(services()))
def test_service_has_a_valid_type(name: str) -> None:
    """Each s6-rc service directory has a type file naming longrun, oneshot or bundle."""
    assert service_type(services()[name]) in SERVICE_TYPES


@pytest.mark.parametrize("name", sorted(services()))
def test_service_has_the_files_its_type_needs(name: str) -> None:
    """A longrun has an executable run; a oneshot's up names an executable script in rootfs/."""
    service = services()[name]
    if service_type(service) == "longrun":
        assert os.access(service / "run", os.X_OK)
    elif service_type(service) == "oneshot":
        command = (service / "up").read_text(encoding="utf-8").split()
        assert len(command) == 1, "up is parsed by execline; keep it to one script path"
        target = ROOTFS / command[0].lstrip("/")
        assert target.is_file(), command[0]
        assert os.access(target, os.X_OK), command[0]


@pytest.mark.parametrize("name", sorted(services()))
def test_service_depends_only_on_known_services(name: str) -> None:
    """Each dependencies.d entry is one of our services or s6-overlay's base."""
    dependencies = services()[name] / "dependencies.d"
    known = set(services()) | {"base"}
    assert {entry.name for entry in dependencies.iterdir()} <= known


def test_home_agent_waits_for_the_base_bundle() -> None:
    """The main service starts after s6-overlay's own initialisation."""
    assert (services()["home-agent"] / "dependencies.d" / "base").is_file()


def test_discovery_runs_after_home_agent_has_started() -> None:
    """Discovery is announced only once the service it announces is up."""
    assert service_type(services()["discovery"]) == "oneshot"
    assert (services()["discovery"] / "dependencies.d" / "home-agent").is_file()


def test_user_bundle_starts_every_service() -> None:
    """s6-overlay starts only what user/contents.d lists; every service of ours is there."""
    contents = S6_RC / "user" / "contents.d"
    assert {entry.name for entry in contents.iterdir()} == set(services())


def test_finish_script_halts_the_container_on_failure() -> None:
    """A failing Home Agent stops the container, so Supervisor sees it stopped."""
    finish = (services()["home-agent"] / "finish").read_text(encoding="utf-8")
    assert "exec /run/s6/basedir/bin/halt" in finish
    assert "/run/s6-linux-init-container-results/exitcode" in finish
