"""ragas messages and samples from a transcript (the general adapter).

``to_ragas`` renders the ordered projection, so every ``ToolMessage`` directly follows
the ``AIMessage`` with its call and every emitted list validates as a ``MultiTurnSample``.
ragas ``ToolCall`` has no id and ``ToolMessage`` no ``tool_call_id``: with
``metadata=True`` the ids travel in each message's metadata, together with the run and
thread ids. Install with ``pip install agui-transcripts[ragas]``.

================================  ===============================================
AG-UI                             ragas
================================  ===============================================
user text                         ``HumanMessage``; media parts dropped, reported
assistant text and calls          ``AIMessage(content, tool_calls)``; ``None`` → ""
call arguments, JSON object       ``ToolCall.args``
arguments that are not an object  ``{"raw_args": <text>}`` (ragas's own shape) for
                                  invalid JSON, lists, scalars, concatenated
                                  objects; never a crash
tool result                       ``ToolMessage``; parts joined as text
tool ``error``                    no slot: error text in the content when it is
                                  empty, ``error`` in metadata
synthetic results (projection)    ``ToolMessage``, ``synthetic`` in metadata
other roles                       system, developer, reasoning and activity
                                  messages dropped, reported (``ragas-dropped``)
ids, run and thread ids           metadata, with ``metadata=True``
content neither text nor parts    its JSON text (``message-content-invalid``)
================================  ===============================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from .._gc import holds_gc
from ..diagnostics import RULES, Diagnostic
from ..model import AssistantMessage, Message, ToolMessage, UserMessage
from ..projection import Policy, Subagents, is_synthetic
from ..ragas_render import ai_message, ragas_args
from ..row_deltas import RowChain, is_whole
from ..transcript import Transcript
from . import messages_of
from .target import Rendering

__all__ = [
    "build_sample",
    "ragas_args",
    "sample_from_row",
    "to_evaluation_dataset",
    "to_ragas",
]

RAGAS_HINT = (
    "the ragas adapter needs a working ragas: pip install 'agui-transcripts[ragas]' (ragas 0.4.x "
    "fails to import with langchain-community 0.4.2 or later; the extra pins it below 0.4.2)"
)


def import_ragas_messages() -> Any:
    """``ragas.messages``, or an ImportError that says what to install."""
    try:
        from ragas import messages
    except ImportError as exc:
        raise ImportError(RAGAS_HINT) from exc
    return messages


def _report(diagnostics: list[Diagnostic] | None, message: Message, why: str) -> None:
    if diagnostics is not None:
        diagnostics.append(
            Diagnostic("ragas-dropped", RULES["ragas-dropped"].severity, why, message_id=message.id)
        )


@holds_gc
def to_ragas(
    source: Transcript | Sequence[Message],
    *,
    metadata: bool = False,
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    diagnostics: list[Diagnostic] | None = None,
) -> list[Any]:
    """Ragas ``HumanMessage`` / ``AIMessage`` / ``ToolMessage`` list for a transcript."""
    rm = import_ragas_messages()
    transcript = source if isinstance(source, Transcript) else None
    out: list[Any] = []
    for message in messages_of(source, policy=policy, diagnostics=diagnostics, subagents=subagents):
        meta = _metadata(message, transcript) if metadata else None
        turn = _ragas_message(rm, message, meta, diagnostics)
        if turn is not None:
            out.append(turn)
    return out


def _metadata(message: Message, transcript: Transcript | None) -> dict[str, Any]:
    """What ``metadata=True`` keeps of a message (its run's from the transcript)."""
    meta: dict[str, Any] = {"message_id": message.id}
    run = transcript.run_of(message) if transcript is not None else None
    if run is not None:
        meta["run_id"] = run.run_id
        meta["thread_id"] = run.thread_id
    if message.subagent_run_id is not None:
        meta["subagent_run_id"] = message.subagent_run_id
    if message.metadata is not None:
        meta["metadata"] = message.metadata
    return meta


def _ragas_message(
    rm: Any, message: Message, meta: dict[str, Any] | None, diagnostics: list[Diagnostic] | None
) -> Any:
    """One message's ragas form (None: it has none)."""
    if isinstance(message, UserMessage):
        if isinstance(message.content, list) and any(
            p.get("type") != "text" for p in message.content
        ):
            _report(
                diagnostics, message, f"user message {message.id!r}: media parts have no ragas form"
            )
        return rm.HumanMessage(content=message.text, metadata=meta)
    if isinstance(message, AssistantMessage):
        return ai_message(rm, message, meta)
    if isinstance(message, ToolMessage):
        text = message.text or (message.error or "")
        if meta is not None:
            meta["tool_call_id"] = message.tool_call_id
            if message.error is not None:
                meta["error"] = message.error
            if is_synthetic(message):
                meta["synthetic"] = True
        return rm.ToolMessage(content=text, metadata=meta)
    _report(diagnostics, message, f"{message.role} message {message.id!r} has no ragas type")
    return None


def build_sample(
    transcript: Transcript,
    *,
    reference: str | None = None,
    reference_tool_calls: Sequence[Any] | None = None,
    metadata: bool = False,
    policy: Policy = "synthesize",
    subagents: Subagents = "inline",
    diagnostics: list[Diagnostic] | None = None,
    **fields: Any,
) -> Any:
    """A validated ``MultiTurnSample`` of the whole conversation.

    ``reference_tool_calls`` takes ragas ``ToolCall`` objects or ``{"name", "args"}``
    dicts; other ``MultiTurnSample`` fields (``rubrics``, ``reference_topics``) pass
    through.
    """
    rm = import_ragas_messages()
    from ragas.dataset_schema import MultiTurnSample

    calls = None
    if reference_tool_calls is not None:
        calls = [
            c if isinstance(c, rm.ToolCall) else rm.ToolCall(**c) for c in reference_tool_calls
        ]
    messages = to_ragas(
        transcript,
        metadata=metadata,
        policy=policy,
        diagnostics=diagnostics,
        subagents=subagents,
    )
    return MultiTurnSample(
        user_input=messages, reference=reference, reference_tool_calls=calls, **fields
    )


def sample_from_row(row: Mapping[str, Any], **fields: Any) -> Any:
    """The ``MultiTurnSample`` of a dataset row written for ragas (``target='ragas'``).

    A row read back from Parquet gives the same sample :func:`build_sample` gives for
    its transcript. ``fields`` (``reference``, ``reference_tool_calls`` as ragas
    ``ToolCall`` objects or ``{"name", "args"}`` dicts, ``rubrics``...) pass through.
    A row per run that holds only what its run changed raises ``ValueError``:
    :func:`~agui_transcripts.rows.whole_rows` restores it.
    """
    if row.get("target") != "ragas":
        raise ValueError(
            f"{row.get('source')}: a row written for {row.get('target')!r}; ragas samples "
            "come from rows written with target='ragas' (convert --to ragas)"
        )
    if not row.get("ok"):
        raise ValueError(f"{row.get('source')}: a failed row has no conversation: {row['error']}")
    if not is_whole(row):
        raise ValueError(
            f"{row.get('source')}: the row of run {row.get('run_index')} holds what that run "
            "changed; restore the rows with agui_transcripts.rows.whole_rows first"
        )
    rm = import_ragas_messages()
    from ragas.dataset_schema import MultiTurnSample

    messages: list[Any] = []
    for message in row["messages"]:
        content = message["content"] or ""
        if message["role"] == "human":
            messages.append(rm.HumanMessage(content=content))
        elif message["role"] == "ai":
            calls = [
                rm.ToolCall(name=call["name"], args=ragas_args(call["arguments"] or ""))
                for call in message["tool_calls"] or ()
            ]
            messages.append(rm.AIMessage(content=content, tool_calls=calls or None))
        else:
            messages.append(rm.ToolMessage(content=content))
    calls = fields.pop("reference_tool_calls", None)
    if calls is not None:
        calls = [c if isinstance(c, rm.ToolCall) else rm.ToolCall(**c) for c in calls]
    return MultiTurnSample(user_input=messages, reference_tool_calls=calls, **fields)


def to_evaluation_dataset(
    items: Iterable[Transcript | Mapping[str, Any]],
    *,
    fields: Callable[[Any], Mapping[str, Any]] | None = None,
    failed: Literal["raise", "skip"] = "raise",
) -> Any:
    """A ragas ``EvaluationDataset`` of ``MultiTurnSample``, ready for ``ragas.evaluate``.

    ``items`` are transcripts or dataset rows written for ragas (from
    :func:`agui_transcripts.rows.log_row` or read back from Parquet). ``fields(item)``
    gives each sample's extra fields (references, rubrics). A failed row raises
    ``ValueError`` naming its log, or is left out with ``failed="skip"``. Rows per run
    are restored whole as they come (a log's rows together and in order, as written).
    """
    import_ragas_messages()
    from ragas.dataset_schema import EvaluationDataset

    samples = []
    chain = RowChain()  # rows per run are restored whole, in the order they come
    for item in items:
        if isinstance(item, Transcript):
            samples.append(build_sample(item, **_extra(fields, item)))
        elif failed != "skip" or item.get("ok"):
            row = chain.whole(item)
            samples.append(sample_from_row(row, **_extra(fields, row)))
    return EvaluationDataset(samples=samples)


def _extra(fields: Callable[[Any], Mapping[str, Any]] | None, item: Any) -> dict[str, Any]:
    return dict(fields(item)) if fields is not None else {}


def _as_json(transcript: Transcript, ordered: bool, subagents: Subagents) -> list[Any]:
    messages = to_ragas(transcript, metadata=True, subagents=subagents)
    return [message.model_dump(mode="json") for message in messages]


def _each(transcript: Transcript, messages: Sequence[Message]) -> list[list[Any]]:
    rm = import_ragas_messages()
    turns = (_ragas_message(rm, m, _metadata(m, transcript), None) for m in messages)
    return [[] if turn is None else [turn.model_dump(mode="json")] for turn in turns]


TARGET = Rendering("ragas", "ragas", _as_json, import_ragas_messages, each=_each)
