"""These tests need the real ragas (the [ragas] extra).

Without ragas they are not collected; ``test_extra_present.py``
reports them skipped, with the reason. CI runs them in a leg that installs it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from tests.extras import ignored_without

# No usage telemetry from the suite. ragas still makes a user id for its events, kept in
# its data folder, and leaves that file open when it reads it back: a fresh folder per
# run means it is only ever written (closed), never read.
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
_DATA = tempfile.mkdtemp(prefix="ragas-data-")
os.environ["XDG_DATA_HOME"] = _DATA
atexit.register(shutil.rmtree, _DATA, ignore_errors=True)

collect_ignore = ignored_without("ragas", Path(__file__).parent)
