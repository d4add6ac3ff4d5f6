"""hybridlab.p2p.hockney: the Hockney fit, the protocol switch and the aggregation model, on
synthetic data whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from hybridlab.p2p.hockney import (
    aggregated_time,
    find_protocol_switch,
    hockney_fit,
    piecewise_hockney,
)

SIZES = 2.0 ** np.arange(0, 23)  # 1 B .. 4 MiB


def _two_protocols(switch=8192.0):
    """Eager: 1 us + s / 2 GB/s below the switch; rendezvous: 3 us + s / 10 GB/s above."""
    return np.where(SIZES < switch, 1e-6 + SIZES / 2e9, 3e-6 + SIZES / 10e9)


def test_exact_line_is_recovered():
    t = 2e-6 + SIZES / 5e9
    fit = hockney_fit(SIZES, t)
    assert fit.alpha == pytest.approx(2e-6, rel=1e-6)
    assert fit.beta == pytest.approx(5e9, rel=1e-6)
    assert fit.alpha_err < 1e-12 and fit.beta_err / fit.beta < 1e-6
    assert fit.n == SIZES.size and fit.residual < 1e-20
    assert fit.predict(1024) == pytest.approx(2e-6 + 1024 / 5e9)
    assert fit.slope == pytest.approx(1 / 5e9)
    assert "GB/s" in repr(fit)


def test_noise_gives_errors_that_cover_the_truth():
    rng = np.random.default_rng(1)
    s = SIZES[10:]
    t = 5e-6 + s / 8e9
    fit = hockney_fit(s, t + rng.normal(0, 2e-6, s.size))
    assert abs(fit.alpha - 5e-6) < 4 * fit.alpha_err
    assert abs(fit.beta - 8e9) < 4 * fit.beta_err
    assert fit.alpha_err > 0 and fit.beta_err > 0
    # less noise, smaller errors
    quiet = hockney_fit(s, t + rng.normal(0, 2e-7, s.size))
    assert quiet.beta_err < fit.beta_err


def test_the_fit_is_of_the_median_of_each_size():
    """Repeated samples of a size count once, as their median: a disturbed sample moves nothing."""
    s = np.repeat(SIZES[5:], 3)
    t = np.repeat(2e-6 + SIZES[5:] / 5e9, 3)
    t[::3] *= 50  # one of the three samples of every size disturbed
    fit = hockney_fit(s, t)
    assert fit.n == SIZES[5:].size
    assert fit.alpha == pytest.approx(2e-6, rel=1e-6) and fit.beta == pytest.approx(5e9, rel=1e-6)
    assert find_protocol_switch(np.repeat(SIZES, 3), np.repeat(_two_protocols(), 3)) == 8192.0


def test_fit_errors():
    with pytest.raises(ValueError, match="at least 2 distinct sizes"):
        hockney_fit([8, 8, 8], [1e-6, 1.1e-6, 0.9e-6])
    with pytest.raises(ValueError, match="differ in length"):
        hockney_fit([1, 2, 3], [1e-6, 2e-6])
    flat = hockney_fit([1, 2, 3], [3e-6, 2e-6, 1e-6])  # noise can tilt a latency-only line
    assert flat.beta == np.inf and np.isnan(flat.beta_err) and not flat.resolved
    assert flat.slope == pytest.approx(-1e-6) and flat.predict(2) == pytest.approx(2e-6)
    with pytest.raises(ValueError, match="finite"):
        hockney_fit([1, 2, np.nan], [1e-6, 2e-6, 3e-6])
    two = hockney_fit([1, 2], [1e-6, 2e-6])  # exactly determined: no error estimate
    assert np.isnan(two.alpha_err) and np.isnan(two.beta_err)


@pytest.mark.parametrize("switch", [64.0, 8192.0, 65536.0, 524288.0])
def test_switch_is_found_exactly(switch):
    assert find_protocol_switch(SIZES, _two_protocols(switch)) == switch


def test_switch_with_noise_and_repeated_samples():
    rng = np.random.default_rng(2)
    s = np.repeat(SIZES, 5)
    t = np.repeat(_two_protocols(), 5) * (1 + rng.normal(0, 0.02, s.size))
    found = find_protocol_switch(s, t)
    assert found in (4096.0, 8192.0, 16384.0)  # within one size step


def test_piecewise_recovers_both_lines():
    pw = piecewise_hockney(SIZES, _two_protocols())
    assert pw.switch_bytes == 8192.0
    assert pw.below.alpha == pytest.approx(1e-6, rel=1e-6)
    assert pw.below.beta == pytest.approx(2e9, rel=1e-6)
    assert pw.above.alpha == pytest.approx(3e-6, rel=1e-6)
    assert pw.above.beta == pytest.approx(10e9, rel=1e-6)
    assert pw.residual < 1e-20
    assert np.allclose(pw.predict(SIZES), _two_protocols())
    given = piecewise_hockney(SIZES, _two_protocols(), switch_bytes=65536)
    assert given.switch_bytes == 65536 and given.residual > 0


def test_switch_needs_points_on_both_sides():
    with pytest.raises(ValueError, match="at least 6 distinct sizes"):
        find_protocol_switch(SIZES[:5], _two_protocols()[:5])
    with pytest.raises(ValueError, match="at least 4 distinct sizes"):
        find_protocol_switch(SIZES[:3], _two_protocols()[:3], min_points=2)
    with pytest.raises(ValueError, match="positive"):
        find_protocol_switch(SIZES, -_two_protocols())
    # the switch is never closer than 3 sizes to either end
    edge = find_protocol_switch(SIZES, np.where(SIZES < 4, 1e-6, 5e-6) + SIZES / 1e9)
    assert edge >= SIZES[3]


def test_aggregated_time():
    assert aggregated_time(1e-6, 1e9, 8000, 8) == pytest.approx(8e-6 + 8e-6)
    assert aggregated_time(1e-6, 1e9, 8000) == pytest.approx(1e-6 + 8e-6)
    v = np.array([8.0, 8e6])
    ratio = aggregated_time(1e-6, 1e9, v, 1) / aggregated_time(1e-6, 1e9, v, 8)
    assert ratio[0] == pytest.approx(1 / 8, rel=0.01) and ratio[1] == pytest.approx(1, rel=0.01)
    with pytest.raises(ValueError, match="beta must be positive"):
        aggregated_time(1e-6, 0, 8)
