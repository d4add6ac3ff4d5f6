"""Statistics of timing samples, the way the kit reports them (book: How the kit measures).

Median and minimum with the spread, outliers beyond 3 standard deviations counted (not dropped),
and a flag when the spread is too wide to trust. Overheads are differences against a reference
(EPCC syncbench: overhead = test time - reference time), with the spread of both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

WIDE_SPREAD = 0.10  # relative standard deviation above which a measurement is flagged


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    min: float
    max: float
    std: float
    outliers: int  # samples further than 3 standard deviations from the mean
    trusted: bool  # std / |median| <= WIDE_SPREAD

    @property
    def relative_spread(self) -> float:
        return self.std / abs(self.median) if self.median else math.inf

    def as_dict(self) -> dict[str, float | int | bool]:
        return asdict(self)


def summarize(samples: Sequence[float]) -> Summary:
    """Summary of one set of samples; at least one sample is needed."""
    x = np.asarray(samples, dtype=float)
    if x.size == 0:
        raise ValueError("no samples to summarise")
    if not np.all(np.isfinite(x)):
        raise ValueError("samples must be finite numbers")
    std = float(x.std(ddof=1)) if x.size > 1 else 0.0
    mean = float(x.mean())
    outliers = int(np.sum(np.abs(x - mean) > 3 * std)) if std > 0 else 0
    median = float(np.median(x))
    trusted = bool(std <= WIDE_SPREAD * abs(median)) if median else std == 0
    return Summary(
        int(x.size), median, mean, float(x.min()), float(x.max()), std, outliers, trusted
    )


@dataclass(frozen=True)
class Overhead:
    """Test minus reference, with the spread of both (EPCC syncbench)."""

    value: float  # median(test) - median(reference)
    spread: float  # sqrt(std_test^2 + std_reference^2)
    test: Summary
    reference: Summary

    @property
    def trusted(self) -> bool:
        return self.test.trusted and self.reference.trusted


def overhead(test: Sequence[float], reference: Sequence[float]) -> Overhead:
    t, r = summarize(test), summarize(reference)
    return Overhead(t.median - r.median, math.hypot(t.std, r.std), t, r)


def summarize_frame(frame: pd.DataFrame, by: list[str], value: str = "seconds") -> pd.DataFrame:
    """One row per group of `by` with the Summary of `value` as columns."""
    if value not in frame:
        raise ValueError(f"records have no column {value!r}")
    rows = []
    for key, group in frame.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key, strict=True)), **summarize(group[value]).as_dict()})
    return pd.DataFrame(rows)
