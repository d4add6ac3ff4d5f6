import math

import pandas as pd
import pytest

from hybridlab.runs.stats import overhead, summarize, summarize_frame


def test_summary_reports_median_min_spread_and_counts_outliers():
    samples = [1.0] * 19 + [10.0]
    s = summarize(samples)
    assert (s.n, s.median, s.min, s.max) == (20, 1.0, 1.0, 10.0)
    assert s.outliers == 1
    assert not s.trusted  # one wild sample makes the spread too wide to trust


def test_a_tight_set_is_trusted():
    s = summarize([1.00, 1.01, 0.99, 1.00])
    assert s.trusted and s.outliers == 0 and s.relative_spread < 0.02


def test_bad_samples_are_refused():
    with pytest.raises(ValueError, match="no samples"):
        summarize([])
    with pytest.raises(ValueError, match="finite"):
        summarize([1.0, math.nan])


def test_overhead_is_test_minus_reference_with_both_spreads():
    o = overhead([3.0, 3.2, 2.8], [1.0, 1.1, 0.9])
    assert o.value == pytest.approx(2.0)
    assert o.spread == pytest.approx(math.hypot(0.2, 0.1))


def test_frames_are_summarised_per_group():
    frame = pd.DataFrame({"threads": [1, 1, 2, 2], "seconds": [1.0, 3.0, 2.0, 2.0]})
    out = summarize_frame(frame, ["threads"])
    assert list(out["threads"]) == [1, 2] and list(out["median"]) == [2.0, 2.0]
    with pytest.raises(ValueError, match="no column 'time'"):
        summarize_frame(frame, ["threads"], "time")
