"""Answering interrupts: a policy decides, and the resume entries are built and checked.

A run that ends with ``RUN_FINISHED.outcome = {type: "interrupt", interrupts: [...]}``
waits for the next run to carry a ``resume`` entry for every interrupt (AG-UI T7). A
policy answers each one: :func:`approve_all`, :func:`deny_all`, or your own callable,
as Inspect's approvers decide on tool calls. A payload is checked against the
interrupt's ``responseSchema`` (JSON Schema) when it has one, before it is sent.

The approval payload is the AG-UI docs' pattern, ``{"approved": bool, "reason"?: str}``,
which pydantic-ai and agent-framework advertise as their ``responseSchema``.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from .transcript import Transcript

__all__ = [
    "InterruptAnswer",
    "InterruptPolicy",
    "PayloadError",
    "approve_all",
    "check_payload",
    "deny_all",
    "resume_entry",
]


class PayloadError(ValueError):
    """A resume payload that does not match its interrupt's ``responseSchema``."""


@dataclass(frozen=True, slots=True)
class InterruptAnswer:
    """One decision on an interrupt: resolved with a payload, or cancelled."""

    status: Literal["resolved", "cancelled"] = "resolved"
    payload: Any = None
    metadata: dict[str, Any] | None = None

    @classmethod
    def approve(cls, *, edited_args: dict[str, Any] | None = None) -> InterruptAnswer:
        """Approve (``{"approved": true}``), with replacement arguments if given."""
        payload: dict[str, Any] = {"approved": True}
        if edited_args is not None:
            payload["editedArgs"] = edited_args
        return cls("resolved", payload)

    @classmethod
    def deny(cls, reason: str | None = None) -> InterruptAnswer:
        """Deny (``{"approved": false}``), with the reason the agent will read."""
        payload: dict[str, Any] = {"approved": False}
        if reason:
            payload["reason"] = reason
        return cls("resolved", payload)

    @classmethod
    def cancel(cls) -> InterruptAnswer:
        """Cancel: nothing to resume with (the user dismissed the request)."""
        return cls("cancelled")


InterruptPolicy: TypeAlias = Callable[
    [dict[str, Any], "Transcript"],
    "InterruptAnswer | bool | Awaitable[InterruptAnswer | bool | None] | None",
]
"""``policy(interrupt, transcript)``: the interrupt's wire dict and the transcript so far.

It returns an :class:`InterruptAnswer`, True (approve) or False (deny), or None to leave
the interrupt unanswered (the conversation then stops, awaiting a resume). It may be
async.
"""


def approve_all(interrupt: dict[str, Any], transcript: Transcript) -> InterruptAnswer:
    """The policy that approves every interrupt."""
    return InterruptAnswer.approve()


def deny_all(interrupt: dict[str, Any], transcript: Transcript) -> InterruptAnswer:
    """The policy that denies every interrupt."""
    return InterruptAnswer.deny("denied by the harness's policy")


async def decide(
    policy: InterruptPolicy, interrupt: dict[str, Any], transcript: Transcript
) -> InterruptAnswer | None:
    """The policy's answer to one interrupt, as an :class:`InterruptAnswer` (or None)."""
    answer: Any = policy(interrupt, transcript)
    if inspect.isawaitable(answer):
        answer = await answer
    if answer is None or isinstance(answer, InterruptAnswer):
        return answer
    if answer is True:
        return InterruptAnswer.approve()
    if answer is False:
        return InterruptAnswer.deny()
    raise TypeError(
        f"an interrupt policy returns an InterruptAnswer, True, False or None, not "
        f"{type(answer).__name__}"
    )


def check_payload(interrupt: dict[str, Any], payload: Any) -> None:
    """Raise :class:`PayloadError` if ``payload`` does not match the ``responseSchema``.

    No schema, nothing to check. Needs ``jsonschema`` (the ``http`` extra) only when the
    interrupt has a schema.
    """
    schema = interrupt.get("responseSchema")
    if not isinstance(schema, dict):
        return
    try:
        import jsonschema
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "checking a resume payload against a responseSchema needs jsonschema: "
            "pip install 'agui-transcripts[http]'"
        ) from exc
    validator_class = jsonschema.validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as error:
        raise PayloadError(
            f"interrupt {interrupt.get('id')!r} has a responseSchema that is not JSON Schema: "
            f"{error.message}"
        ) from None
    problems = sorted(
        validator_class(schema).iter_errors(payload), key=lambda e: list(e.absolute_path)
    )
    if problems:
        where = problems[0].json_path
        raise PayloadError(
            f"the resume payload for interrupt {interrupt.get('id')!r} does not match its "
            f"responseSchema: {where}: {problems[0].message}"
        )


def resume_entry(interrupt: dict[str, Any], answer: InterruptAnswer) -> dict[str, Any]:
    """The ``ResumeEntry`` wire dict for an answer, its payload checked first."""
    entry: dict[str, Any] = {"interruptId": interrupt.get("id"), "status": answer.status}
    if answer.status == "resolved":
        check_payload(interrupt, answer.payload)
        if answer.payload is not None:
            entry["payload"] = answer.payload
    if answer.metadata is not None:
        entry["metadata"] = answer.metadata
    return entry
