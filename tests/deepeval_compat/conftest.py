"""These tests need the real deepeval (the [deepeval] extra).

Without deepeval they are not collected; ``test_extra_present.py``
reports them skipped, with the reason. CI runs them in a leg that installs it.
"""

from __future__ import annotations

from pathlib import Path

from tests.extras import ignored_without

collect_ignore = ignored_without("deepeval", Path(__file__).parent)
