"""Checks of a built wheel that need no install: asserts compiled out, and its dependencies.

Run: ``make wheel-smoke`` (Linux), or ``python scripts/check_wheel.py WHEEL`` as the release
workflow does on every platform. Fails (exit 1) when

- the extension calls C ``assert``'s failure handler: ``__assert_fail`` (glibc, musl),
  ``___assert_rtn`` (macOS) or ``_wassert`` (Windows). tree-sitter's C runtime must be
  built with NDEBUG (.cargo/config.toml, shipped in the sdist); every name is looked for
  on every platform, since none belongs in any of the wheels;
- on Linux, ``auditwheel show`` does not find the wheel consistent with a platform tag its
  file name carries (manylinux_2_17 for the manylinux2014 wheel, musllinux_1_2 for musl);
- on macOS, ``delocate-listdeps`` lists a library outside the system's.

Windows wheels get the assert check only (the extension links the system's DLLs alone).
auditwheel and delocate come from the interpreter that runs this (its scripts directory),
else from PATH.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ASSERT_HANDLERS = (b"__assert_fail", b"___assert_rtn", b"_wassert")


def tool(name: str) -> str:
    found = shutil.which(name, path=sysconfig.get_path("scripts")) or shutil.which(name)
    if found is None:
        raise SystemExit(f"check_wheel: {name} is not installed")
    return found


def platform_tags(wheel: Path) -> list[str]:
    # name-version(-build)?-python-abi-platform.whl; the platform part may hold several tags.
    return wheel.name.removesuffix(".whl").split("-")[-1].split(".")


def assert_handlers(wheel: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    with zipfile.ZipFile(wheel) as z:
        natives = [
            n
            for n in z.namelist()
            if Path(n).name.startswith("_native") and n.endswith((".so", ".pyd", ".dylib"))
        ]
        if not natives:
            raise SystemExit(f"check_wheel: no ferrochunk/_native* extension in {wheel.name}")
        for name in natives:
            data = z.read(name)
            found[name] = [h.decode() for h in ASSERT_HANDLERS if h in data]
    return found


def auditwheel(wheel: Path) -> tuple[bool, str]:
    out = subprocess.run(
        [tool("auditwheel"), "show", str(wheel)], capture_output=True, text=True, check=False
    )
    text = " ".join((out.stdout + out.stderr).split())
    match = re.search(r'consistent with the following platform tag: "([^"]+)"', text)
    ok = match is not None and match[1] in platform_tags(wheel)
    return ok, text


def delocate(wheel: Path) -> tuple[bool, str]:
    listdeps = tool("delocate-listdeps")
    every = subprocess.run([listdeps, "--all", str(wheel)], capture_output=True, text=True)
    # Without --all it lists the libraries outside /usr/lib and /System: there must be none.
    outside = subprocess.run([listdeps, str(wheel)], capture_output=True, text=True)
    ok = every.returncode == 0 and outside.returncode == 0 and not outside.stdout.strip()
    report = f"all: {every.stdout.split()} outside the system: {outside.stdout.split()}"
    return ok, report + (every.stderr + outside.stderr).strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("wheel", type=Path)
    wheel = parser.parse_args().wheel
    tags = platform_tags(wheel)
    print(f"{wheel.name}: platform tags {tags}")
    checks: dict[str, bool] = {}
    for name, handlers in assert_handlers(wheel).items():
        print(f"  {name}: assert handlers {handlers or 'none'}")
        checks[f"no assert handler in {name} (NDEBUG)"] = not handlers
    if any(t.startswith(("manylinux", "musllinux")) for t in tags):
        ok, report = auditwheel(wheel)
        print(f"  auditwheel show: {report}")
        checks["auditwheel: consistent with a tag of the file name"] = ok
    elif any(t.startswith("macosx") for t in tags):
        ok, report = delocate(wheel)
        print(f"  delocate-listdeps: {report}")
        checks["delocate: system libraries only"] = ok
    elif not any(t.startswith("win") for t in tags):
        checks[f"a manylinux, musllinux, macosx or win platform tag ({tags})"] = False
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
