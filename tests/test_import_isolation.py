"""Importing the package must not import any framework (design decision 6)."""

from __future__ import annotations

import json
import subprocess
import sys

FRAMEWORKS = (
    "ragas",
    "langchain",
    "langchain_core",
    "httpx",
    "httpx_sse",
    "openai",
    "deepeval",
    "inspect_ai",
    "pyarrow",
    "pandas",
    "datasets",
    "ray",
)


def test_import_pulls_in_no_framework() -> None:
    code = (
        "import json, sys\n"
        "import agui_transcripts\n"
        "import agui_transcripts.rows, agui_transcripts.arrow, agui_transcripts.cli\n"
        f"frameworks = {FRAMEWORKS!r}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in frameworks)\n"
        "print(json.dumps(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []


def test_public_api_is_importable() -> None:
    import agui_transcripts

    for name in agui_transcripts.__all__:
        assert hasattr(agui_transcripts, name), name


def test_adapters_say_which_extra_is_missing() -> None:
    code = (
        "import sys\n"
        "sys.modules['ragas'] = None\n"
        "sys.modules['langchain_core'] = None\n"
        "sys.modules['deepeval'] = None\n"
        "sys.modules['inspect_ai'] = None\n"
        "from agui_transcripts import fold\n"
        "from agui_transcripts.adapters.ragas import to_ragas\n"
        "from agui_transcripts.adapters.langchain import to_langchain\n"
        "from agui_transcripts.adapters.deepeval import to_llm_test_case\n"
        "from agui_transcripts.adapters.inspect import to_inspect\n"
        "for adapter in (to_ragas, to_langchain, to_llm_test_case, to_inspect):\n"
        "    try:\n"
        "        adapter(fold([]))\n"
        "    except ImportError as error:\n"
        "        print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    lines = result.stdout.splitlines()
    assert len(lines) == 4
    assert "agui-transcripts[ragas]" in lines[0]
    assert "agui-transcripts[langchain]" in lines[1]
    assert "agui-transcripts[deepeval]" in lines[2]
    assert "agui-transcripts[inspect]" in lines[3]
