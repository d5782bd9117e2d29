"""Token usage as runs report it, summed: what rows and spans show of ``usage``.

``RUN_FINISHED.usage`` (and ``RUN_ERROR.usage``) is a list of ``TokenUsage`` entries in
AG-UI 1.0, one per provider and model, whose counts add up without double counting; a
0.1.x producer sends one object. Both spellings of the count keys are read; anything
that is not a whole, non-negative number is left out, never guessed.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["COUNT_NAMES", "token_totals", "usage_labels"]

#: The counts summed, by their snake_case names (AG-UI's ``TokenUsage`` fields).
COUNT_NAMES: Final = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "reasoning_tokens",
    "cached_input_tokens",
    "cache_write_input_tokens",
)
_CAMEL: Final = {
    name: name.split("_")[0] + "".join(p.title() for p in name.split("_")[1:])
    for name in COUNT_NAMES
}


def _entries(usage: Any) -> list[dict[str, Any]]:
    if isinstance(usage, dict):
        return [usage]
    if isinstance(usage, list):
        return [entry for entry in usage if isinstance(entry, dict)]
    return []


def _count(entry: dict[str, Any], name: str) -> int | None:
    value = entry.get(_CAMEL[name], entry.get(name))
    if type(value) is float and value.is_integer():
        value = int(value)
    return value if type(value) is int and value >= 0 else None


def token_totals(usage: Any) -> dict[str, int]:
    """Each count the usage names, summed over its entries (absent when none names it)."""
    totals: dict[str, int] = {}
    for entry in _entries(usage):
        for name in COUNT_NAMES:
            value = _count(entry, name)
            if value is not None:
                totals[name] = totals.get(name, 0) + value
    if "total_tokens" not in totals and "input_tokens" in totals and "output_tokens" in totals:
        totals["total_tokens"] = totals["input_tokens"] + totals["output_tokens"]
    return totals


def usage_labels(usage: Any) -> tuple[str | None, str | None]:
    """The provider and model the usage names, when all its entries name the same one."""
    found: list[tuple[str | None, str | None]] = []
    for entry in _entries(usage):
        provider, model = entry.get("provider"), entry.get("model")
        found.append(
            (
                provider if isinstance(provider, str) else None,
                model if isinstance(model, str) else None,
            )
        )
    providers = {p for p, _ in found}
    models = {m for _, m in found}
    return (
        providers.pop() if len(providers) == 1 else None,
        models.pop() if len(models) == 1 else None,
    )
