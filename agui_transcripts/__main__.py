"""``python -m agui_transcripts``: the same as the ``agui-transcripts`` command."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
