"""Real AG-UI agents served on loopback for the harness tests (scripted models, no LLM)."""
