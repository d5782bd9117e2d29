"""The adapter registry: one declared target per adapter module, rendered alike.

Every name the command line offers renders through the registry; a framework that is
not installed is reported by ``require`` with the extra that brings it.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from agui_transcripts import fold
from agui_transcripts.adapters.otel import otlp_json, to_otel_spans
from agui_transcripts.adapters.registry import REGISTRY, names, render, target
from agui_transcripts.adapters.target import Rendering
from agui_transcripts.cli import build_parser

from .adapter_modules import adapter_modules
from .producers import BOOKING, booking_run

HERE = Path(__file__).parent
STREAMS = sorted((HERE / "golden" / "streams").glob("scenario-*.jsonl"))[:6]

# The module each framework target needs (the core targets need none).
FRAMEWORK = {"inspect": "inspect_ai", "deepeval": "deepeval", "langchain": "langchain_core"}
FRAMEWORK["ragas"] = "ragas"
FRAMEWORK["otel"] = "opentelemetry.sdk"


def _installed(name: str) -> bool:
    module = FRAMEWORK.get(name)
    return module is None or importlib.util.find_spec(module) is not None


def test_every_adapter_module_declares_one_registered_target() -> None:
    declared = [module.TARGET for module in adapter_modules()]
    assert sorted(t.name for t in declared) == sorted(names())
    assert all(REGISTRY[t.name] is t for t in declared)


@pytest.mark.parametrize("name", names())
def test_the_command_line_takes_every_registered_name(name: str) -> None:
    assert build_parser().parse_args(["convert", "run.jsonl", "--to", name]).to == name


def test_the_command_line_refuses_a_name_the_registry_lacks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["convert", "run.jsonl", "--to", "ragass"])
    assert "invalid choice: 'ragass'" in capsys.readouterr().err


def test_an_unknown_target_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown target 'ragass': one of agui, openai"):
        target("ragass")


@pytest.mark.parametrize("name", names())
def test_require_passes_or_names_the_extra(name: str) -> None:
    declared = target(name)
    if _installed(name):
        declared.require()
    else:
        assert declared.extra is not None
        with pytest.raises(ImportError, match=rf"agui-transcripts\[{declared.extra}\]"):
            declared.require()


@pytest.mark.parametrize("name", names())
@pytest.mark.parametrize("stream", STREAMS, ids=lambda path: path.stem)
def test_every_target_renders_plain_json(name: str, stream: Path) -> None:
    if not _installed(name):
        pytest.skip(f"{FRAMEWORK[name]} is not installed (the [{target(name).extra}] extra)")
    transcript = fold(stream, inputs_beside=True)
    rendered = render(transcript, name, ordered=True)
    assert isinstance(rendered, list)
    assert json.loads(json.dumps(rendered)) == rendered  # nothing but JSON values
    assert rendered or not transcript.messages


def test_render_holds_the_collector_for_every_target(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def spy(transcript: Any, ordered: bool, subagents: Any) -> list[Any]:
        seen.append(gc.isenabled())
        return []

    monkeypatch.setitem(REGISTRY, "chat-turns", Rendering("chat-turns", None, spy))
    assert gc.isenabled()
    render(fold(STREAMS[0]), "chat-turns", ordered=True)
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.parametrize("name", names())
def test_content_neither_text_nor_parts_renders_as_its_json_text(name: str) -> None:
    """A client sent an object as a message's content: AG-UI keeps it, the rest read text."""
    if not _installed(name):
        pytest.skip(f"{FRAMEWORK[name]} is not installed (the [{target(name).extra}] extra)")
    events, run_input = booking_run()
    transcript = fold(events, run_input=run_input)
    assert [d.code for d in transcript.diagnostics] == ["message-content-invalid"]
    if name == "otel":  # message content is opt-in there, and JSON inside attributes
        spans = to_otel_spans(transcript, content=True)
        assert otlp_json(spans)["resourceSpans"]
        rendered = "\n".join(str(value) for s in spans for value in s.attributes.values())
    else:
        rendered = json.dumps(render(transcript, name, ordered=True))
    if name == "agui":
        assert json.loads(rendered)[0]["content"] == BOOKING
    else:
        assert json.dumps(json.dumps(BOOKING, separators=(",", ":")))[1:-1] in rendered
