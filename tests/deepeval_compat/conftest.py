"""These tests need the real deepeval (the [deepeval] extra).

Without deepeval they are not collected; CI runs them in a leg that installs it.
"""

from __future__ import annotations

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("deepeval") else ["test_*.py"]
