"""These tests need the real Inspect AI (the [inspect] extra).

Without it they are not collected; CI runs them in a leg that installs it.
"""

from __future__ import annotations

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("inspect_ai") else ["test_*.py"]
