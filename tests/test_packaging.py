"""Release and packaging: the licence, one version source, and the release workflow's gates.

Read from the checkout and the installed distribution's metadata only; nothing is built.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.version import Version

import ferrochunk

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def _toml(name: str) -> dict[str, Any]:
    with (ROOT / name).open("rb") as f:
        return tomllib.load(f)


def _workflow() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _runs(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def _needs(job: dict[str, Any]) -> list[str]:
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else list(needs)


def test_the_licence_is_mit_and_declared():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 ferrochunk contributors" in text
    project = _toml("pyproject.toml")["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert _toml("Cargo.toml")["package"]["license"] == "MIT"


def test_the_installed_metadata_carries_the_licence():
    meta = importlib.metadata.metadata("ferrochunk")
    assert meta["License-Expression"] == "MIT"
    assert "LICENSE" in (meta.get_all("License-File") or [])
    files = importlib.metadata.distribution("ferrochunk").files or []
    assert any(f.parts[-2:] == ("licenses", "LICENSE") for f in files)


def test_the_version_comes_from_cargo_toml_alone():
    project = _toml("pyproject.toml")["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]
    init = (ROOT / "python" / "ferrochunk" / "__init__.py").read_text(encoding="utf-8")
    assert not re.search(r"""__version__\s*(:\s*str\s*)?=\s*["']""", init)


def test_dunder_version_is_the_installed_one_and_cargo_toml_s():
    installed = importlib.metadata.version("ferrochunk")
    assert ferrochunk.__version__ == installed
    # Cargo's 0.2.0-rc.1 is Python's 0.2.0rc1: compared as versions, not strings.
    assert Version(installed) == Version(_toml("Cargo.toml")["package"]["version"])


def test_the_sdist_leaves_out_test_data_images_and_fuzz_seeds():
    excludes = [
        e["path"]
        for e in _toml("pyproject.toml")["tool"]["maturin"]["exclude"]
        if "sdist" in ([e["format"]] if isinstance(e["format"], str) else e["format"])
    ]
    assert {"tests/**/*", "benches/**/*", "**/*.png", "fuzz/**/*"} <= set(excludes)


def test_publish_needs_the_tests_and_every_build():
    jobs = _workflow()["jobs"]
    needs = _needs(jobs["publish"])
    assert "test" in needs
    assert set(needs) == set(jobs) - {"publish"}
    runs = _runs(jobs["test"])
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "make test-rust" in runs
    assert re.search(r"^test-rust:\n\tcargo test --release\b", makefile, re.M)
    assert 'pytest -q -m "not slow"' in runs


def test_publish_checks_the_tag_against_cargo_toml_first():
    steps = _workflow()["jobs"]["publish"]["steps"]
    check = next(i for i, s in enumerate(steps) if "GITHUB_REF_NAME#v" in s.get("run", ""))
    assert "Cargo.toml" in steps[check]["run"]
    publish = next(i for i, s in enumerate(steps) if "gh-action-pypi-publish" in s.get("uses", ""))
    assert check < publish


@pytest.mark.parametrize("job", ["linux", "musllinux", "macos", "windows"])
def test_every_wheel_is_checked_and_smoke_tested_on_310_and_313(job):
    spec = _workflow()["jobs"][job]
    runs = _runs(spec)
    pythons = {
        s["with"]["python-version"] for s in spec["steps"] if "setup-python" in s.get("uses", "")
    }
    if job == "linux":
        # `make wheel-smoke` is the local target: check_wheel.py, then smoke_install.sh.
        assert "make wheel-smoke" in runs
        assert {"3.10", "3.13"} <= pythons
    elif job == "musllinux":
        assert "scripts/check_wheel.py" in runs
        assert "for v in 3.10 3.13" in runs
    else:
        assert "scripts/check_wheel.py" in runs
        assert {"3.10", "3.13"} <= pythons
        assert 'PYTHON="$PY310" bash scripts/smoke_install.sh' in runs
        assert 'PYTHON="$PY313" bash scripts/smoke_install.sh' in runs


def test_wheel_smoke_checks_the_wheel_and_smokes_each_python():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    target = makefile.split("\nwheel-smoke: wheel\n", 1)[1].split("\n\n", 1)[0]
    assert "scripts/check_wheel.py" in target
    assert "for py in $(SMOKE_PYTHONS)" in target
    check = (ROOT / "scripts" / "check_wheel.py").read_text(encoding="utf-8")
    for handler in ("__assert_fail", "___assert_rtn", "_wassert", "auditwheel", "delocate"):
        assert handler in check


def test_the_workflow_pins_actions_and_keeps_credentials_out():
    workflow = _workflow()
    assert workflow["permissions"] == {}
    for name, job in workflow["jobs"].items():
        assert "permissions" in job, name
        for step in job["steps"]:
            if "uses" in step:
                assert PINNED.match(step["uses"]), step["uses"]
            if "actions/checkout" in step.get("uses", ""):
                assert step["with"]["persist-credentials"] is False, name


def test_import_leaves_importlib_metadata_for_dunder_version():
    # importlib.metadata took a third of `import ferrochunk`; only __version__ needs it.
    code = (
        "import sys, ferrochunk; before = 'importlib.metadata' in sys.modules; "
        "v = ferrochunk.__version__; print(before, v == ferrochunk.__version__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
