"""Hidden tests draw their inputs per submission, from a seed the grader sets and the feedback
records, so no input (and no answer) can be known or copied before grading.

    from hybridlab.course.hidden_inputs import rng
    r = rng("phase_shares")          # the same draws for one submission and part, every rerun
    shares = r.uniform(0.1, 5.0, size=(5, 4))

Outside grading (no seed set) the draws come from seed 0. Nothing here computes an answer.
"""

from __future__ import annotations

import hashlib
import os
import zlib

import numpy as np

from ..settings import GRADING_SEED as SEED_ENV


def seed() -> int:
    """The submission's seed (0 outside grading)."""
    return int(os.environ.get(SEED_ENV, "0"))


def rng(part: str) -> np.random.Generator:
    """A generator for one part's hidden inputs: the submission's seed and the part's name."""
    return np.random.default_rng([seed(), zlib.crc32(part.encode())])


def submission_seed(student: str, lab: str, notebook: bytes) -> int:
    """The seed of one submission: the same when the same notebook is graded again (a regrade
    reproduces its hidden inputs), another when anything in it changes."""
    digest = hashlib.sha256(b"\0".join([student.encode(), lab.encode(), notebook])).digest()
    return int.from_bytes(digest[:4], "big")
