"""The client tools the harness tests register (``--tools tests.agents.client_tools:registry``)."""

from __future__ import annotations

from agui_transcripts import ClientTools

registry = ClientTools(timeout=10)


@registry.tool
def show_map(city: str, zoom: int = 10) -> str:
    """Show a city on the user's map."""
    return f"map of {city} at zoom {zoom}"


@registry.tool
def explode(power: int) -> str:
    """A tool that always fails."""
    raise ValueError(f"boom x{power}")
