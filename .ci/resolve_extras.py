"""Time pip's resolution of every extra, as a user's first install meets it.

Each extra of ``pyproject.toml`` alone, and each combination the README recommends (its
``pip install ".[...]"`` lines), is resolved with ``pip install --dry-run``
in a clean virtual environment with an empty cache, so nothing a previous resolution
downloaded makes a later one look fast. A resolution that fails, or takes longer than
the limit, fails the check: a pip that backtracks for many minutes looks like a hang.

Usage: ``python .ci/resolve_extras.py [--limit SECONDS] [--work DIR]``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
INSTALL_LINE = re.compile(r'^pip install "\.\[([a-z0-9,-]+)\]"$', re.M)


def requirement_sets() -> list[str]:
    """Every extra alone, then the README's combinations, each once."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = list(project["project"]["optional-dependencies"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    combinations = INSTALL_LINE.findall(readme)
    unknown = {name for combo in combinations for name in combo.split(",")} - set(extras)
    if unknown:
        raise SystemExit(f"README names extras pyproject.toml lacks: {sorted(unknown)}")
    return list(dict.fromkeys([*extras, *combinations]))


def resolve(python: Path, extras: str, cache: Path, limit: float) -> tuple[float, str]:
    """Seconds pip took, and a failure's reason ('' when it resolved in time)."""
    command = [str(python), "-m", "pip", "install", "--dry-run", "--quiet"]
    command += ["--cache-dir", str(cache), f"{ROOT}[{extras}]"]
    start = time.monotonic()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=limit, check=False, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        return time.monotonic() - start, f"still resolving after {limit:.0f} s"
    took = time.monotonic() - start
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        return took, f"pip exited {done.returncode}:\n{tail}"
    return took, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=240.0, help="seconds per resolution")
    parser.add_argument("--work", type=Path, help="where the venv and caches go")
    options = parser.parse_args()
    work = options.work or Path(tempfile.mkdtemp(prefix="resolve-extras-"))
    environment = work / "venv"
    venv.create(environment, with_pip=True)
    python = environment / ("Scripts" if os.name == "nt" else "bin") / "python"
    pip = subprocess.run(
        [str(python), "-m", "pip", "--version"], capture_output=True, text=True, check=True
    )
    print(pip.stdout.split(" from ")[0], f"(limit {options.limit:.0f} s each)")
    failures = 0
    for number, extras in enumerate(requirement_sets()):
        took, failure = resolve(python, extras, work / f"cache-{number}", options.limit)
        label = f"[{extras}]"
        print(f"{'FAIL' if failure else 'ok':4} {label:<28} {took:6.1f} s", flush=True)
        if failure:
            print("     " + failure.replace("\n", "\n     "), flush=True)
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
