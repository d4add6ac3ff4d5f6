"""The source documents the kit cites: shared/seeds beside the clone, or $HYBRIDLAB_SEEDS.

Tests that check the kit's numbers and claims against the seed text are marked `needs_seeds`
and skip where the documents are not on the machine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SEEDS = Path(
    os.environ.get("HYBRIDLAB_SEEDS", Path(__file__).resolve().parents[2] / "shared" / "seeds")
)
needs_seeds = pytest.mark.skipif(
    not SEEDS.is_dir(), reason="the source documents are not on this machine"
)
