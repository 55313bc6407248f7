"""Front-end packages the panel serves unchanged come from the npm registry, pinned."""

from __future__ import annotations

import json
import shutil
import subprocess

from tests.packaging.supervisor import REPO
from tests.packaging.test_image import instructions

WEBUI = REPO / "webui"
SCRIPT = REPO / "scripts" / "webui-vendor.sh"
SERVED = ("codemirror.js", "codemirror.css", "yaml.js", "javascript.js", "LICENSE")


def test_codemirror_is_pinned_by_version_and_integrity() -> None:
    """The lock names one version and its sha512, which `npm ci` checks the tarball against."""
    lock = json.loads((WEBUI / "package-lock.json").read_text(encoding="utf-8"))
    entry = lock["packages"]["node_modules/codemirror"]
    assert entry["version"] == "5.65.18"
    assert entry["integrity"].startswith("sha512-")
    manifest = json.loads((WEBUI / "package.json").read_text(encoding="utf-8"))
    assert manifest["dependencies"] == {"codemirror": "5.65.18"}


def test_no_copy_of_codemirror_is_in_the_repository() -> None:
    """Git tracks nothing under webui/static/vendor/: the build installs it."""
    tracked = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "webui/static/vendor"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert tracked == ""


def test_the_image_installs_it_with_node_for_that_step_only() -> None:
    """The Dockerfile runs the script after copying the panel, and removes Node.js again."""
    steps = instructions()
    copy_webui = steps.index("COPY webui ./webui")
    [install] = [step for step in steps if "scripts/webui-vendor.sh &&" in step]
    assert steps.index(install) > copy_webui
    assert "apk add --no-cache --virtual .webui-build" in install
    assert "apk del .webui-build" in install


def test_make_installs_it_before_the_tests() -> None:
    """`make venv` (which test, test-quick and demo need) depends on the served files."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "venv: $(VENV)/.installed-py313 $(WEBUI_VENDOR)" in makefile


def test_the_files_the_panel_loads_are_installed() -> None:
    """After `make`, every file the tool page loads is where the static route serves it."""
    served = WEBUI / "static" / "vendor" / "codemirror"
    assert sorted(path.name for path in served.iterdir()) == sorted(SERVED)


def test_the_script_passes_shellcheck() -> None:
    """shellcheck, as bash, finds nothing at any severity."""
    shellcheck = shutil.which("shellcheck")
    assert shellcheck is not None, "shellcheck is not installed (make system-deps)"
    result = subprocess.run(
        [shellcheck, "--norc", "--shell=bash", "--severity=style", str(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
