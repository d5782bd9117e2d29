"""The wheel's build hook: compile the fold's hot modules with mypyc where it can.

The pure-Python modules are the one source of truth; the compiled build is the same
modules, type-checked and translated to C by mypyc, shipped beside their ``.py`` files
(Python imports an extension module before a source file of the same name). Which
modules: ``compile`` in ``[tool.hatch.build.targets.wheel.hooks.custom]``.

``AGUI_TRANSCRIPTS_BUILD`` chooses:

- ``auto`` (the default): compile when the build environment can, otherwise warn and
  ship pure Python (no compiler, an unsupported Python, a mypyc failure);
- ``compiled``: compile or fail the build (CI's compiled leg, release wheels);
- ``pure``: never compile.

Editable installs are always pure Python: compiled modules would shadow the sources
being edited.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

from hatchling.builders.config import BuilderConfig
from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MODES = ("auto", "compiled", "pure")
# mypyc's output and its runtime header set change between releases: the build is
# checked against this range.
MYPYC_REQUIREMENT = "mypy>=1.15"


def build_mode() -> str:
    mode = os.environ.get("AGUI_TRANSCRIPTS_BUILD", "auto").strip().lower() or "auto"
    if mode not in MODES:
        raise SystemExit(f"AGUI_TRANSCRIPTS_BUILD={mode!r}: expected one of {', '.join(MODES)}")
    return mode


class CompileHook(BuildHookInterface[BuilderConfig]):
    PLUGIN_NAME = "custom"
    # The build's scratch folder (C sources, objects, the type-check cache), once made.
    _scratch: Path | None = None

    def dependencies(self) -> list[str]:
        if build_mode() == "pure":
            return []
        # mypyc type-checks what it compiles (and what that imports), so it needs the
        # types the project is checked with: the runtime dependencies and orjson's.
        return [
            MYPYC_REQUIREMENT,
            "setuptools>=70",
            "orjson>=3.9",
            *self.metadata.core.dependencies,
        ]

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        mode = build_mode()
        if version == "editable" or mode == "pure":
            return
        # pip shows a build's output only with -v or on failure; other front ends show
        # it, and the README's quick start says the same.
        sys.stderr.write(
            f"agui-transcripts: compiling {len(self.config.get('compile', []))} modules with "
            "mypyc, about a minute (AGUI_TRANSCRIPTS_BUILD=pure skips it)\n"
        )
        sys.stderr.flush()
        try:
            built = self._compile()
            built["agui_transcripts/_compiled_docs.py"] = self._record_docs()
        except (Exception, SystemExit) as exc:  # mypyc exits on a type error
            if mode == "compiled":
                raise
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            sys.stderr.write(
                f"agui-transcripts: compiling with mypyc failed ({detail}); "
                "building the pure-Python wheel instead\n"
            )
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for relative, path in built.items():
            build_data["force_include"][str(path)] = relative

    def _compile(self) -> dict[str, Path]:
        """Build the extension modules; map each one's path in the wheel to its file."""
        from mypyc.build import mypycify
        from setuptools import Distribution

        modules = self.config.get("compile", [])
        if not modules:
            raise ValueError("no modules listed under 'compile'")
        self._scratch = Path(tempfile.mkdtemp(prefix="agui-transcripts-build-"))
        out = self._scratch / "lib"
        previous = os.getcwd()
        os.chdir(self.root)  # mypyc reads the paths and the mypy settings from here
        try:
            extensions = mypycify(
                # A fresh type-check cache: one left in the project could hide an error.
                ["--cache-dir", str(self._scratch / "mypy"), *modules],
                opt_level="3",
                group_name="agui_transcripts",
                target_dir=str(self._scratch / "c"),
            )
            distribution = Distribution({"name": "agui-transcripts", "ext_modules": extensions})
            command = distribution.get_command_obj("build_ext")
            command.build_lib = str(out)
            command.build_temp = str(self._scratch / "temp")
            command.parallel = os.cpu_count() or 1
            command.ensure_finalized()
            command.run()
        finally:
            os.chdir(previous)
        return {
            path.relative_to(out).as_posix(): path
            for path in sorted(out.rglob("*"))
            if path.is_file() and path.suffix in (".so", ".pyd")
        }

    def _record_docs(self) -> Path:
        """The pure package's docstrings and signatures, which mypyc strips (``_docs``)."""
        assert self._scratch is not None
        probe = (
            "import json, agui_transcripts as a\n"
            "from agui_transcripts._docs import snapshot\n"
            "print(json.dumps(snapshot(vars(a), a.__all__)))\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", probe],
            cwd=self.root,  # the sources, interpreted
            capture_output=True,
            text=True,
            check=True,
        )
        path = self._scratch / "_compiled_docs.py"
        path.write_text(
            '"""What mypyc stripped from the public names (written by the build hook)."""\n\n'
            f"RECORDS = {json.loads(done.stdout)!r}\n",
            encoding="utf-8",
        )
        return path

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
