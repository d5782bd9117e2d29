"""These tests need the real ragas (the [ragas] extra).

Without ragas they are not collected; CI runs them in a leg that installs it.
"""

from __future__ import annotations

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("ragas") else ["test_*.py"]
