"""These tests start a local Ray instance (the [ray] extra).

Without Ray they are not collected
(``test_extra_present.py`` reports them skipped, with the reason), unless
``AGUI_TRANSCRIPTS_REQUIRE_RAY=1`` (set by CI's Ray leg, which installs it), where its
absence is a failure.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from tests.extras import ignored_without

if (
    importlib.util.find_spec("ray") is None
    and os.environ.get("AGUI_TRANSCRIPTS_REQUIRE_RAY") == "1"
):
    raise RuntimeError("AGUI_TRANSCRIPTS_REQUIRE_RAY=1 but Ray is not installed")

collect_ignore = ignored_without("ray", Path(__file__).parent)
