"""Performance models for point-to-point messages (Lab 03), fitted with numpy only.

The Hockney model says a message of s bytes takes

    T(s) = alpha + s / beta

with alpha the latency (seconds) and beta the asymptotic bandwidth (bytes per second). Real MPI
libraries switch protocol at some size (eager below, rendezvous above), so one straight line
fits a sweep badly; `find_protocol_switch` finds the split where two separate lines fit best,
and `piecewise_hockney` fits both. `aggregated_time` is what the model predicts for a volume V
sent as k messages of V/k bytes.

Every fit here is a fit of the **median time of each size** (one point per size, as the OSU
benchmarks report a sweep): robust to the odd disturbed sample. Lab 03's exercises fit every
raw sample instead, with the student's own code.

    from hybridlab.p2p.hockney import hockney_fit, find_protocol_switch
    fit = hockney_fit(df["bytes"], df["seconds"])
    fit.alpha, fit.beta, fit.alpha_err, fit.beta_err
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_POINTS = 3


@dataclass(frozen=True)
class HockneyFit:
    """T = alpha + s / beta fitted by ordinary least squares on (s, median T of s).

    alpha, beta: latency (s) and bandwidth (B/s). alpha_err, beta_err: one standard error each,
    from the covariance of the straight-line fit (beta's propagated from the slope 1/beta:
    err(beta) = err(slope) / slope**2). residual: the sum of squared residuals (s**2). n: the
    number of sizes (points of the fit). With exactly two distinct sizes the errors are nan (no degrees of freedom).
    When the fitted slope is not positive (messages so small that noise hides the time per byte)
    beta is inf and beta_err nan: the data do not resolve a bandwidth; `slope` keeps the fit.
    """

    alpha: float
    beta: float
    alpha_err: float
    beta_err: float
    residual: float
    n: int
    min_bytes: float
    max_bytes: float
    slope: float  # seconds per byte of the fitted line (1 / beta when positive)

    @property
    def resolved(self) -> bool:
        """True when the data resolve a bandwidth (a positive slope)."""
        return self.slope > 0

    def predict(self, size) -> np.ndarray:
        """The fitted line, T(s) = alpha + s / beta (alpha + slope * s)."""
        return self.alpha + np.asarray(size, dtype=float) * self.slope

    def __repr__(self) -> str:
        return (
            f"HockneyFit(alpha={self.alpha * 1e6:.3g} +- {self.alpha_err * 1e6:.2g} us, "
            f"beta={self.beta / 1e9:.3g} +- {self.beta_err / 1e9:.2g} GB/s, n={self.n})"
        )


def _arrays(size, seconds) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(size, dtype=float).ravel()
    t = np.asarray(seconds, dtype=float).ravel()
    if s.shape != t.shape:
        raise ValueError(f"bytes and seconds differ in length ({s.size} and {t.size})")
    if not (np.isfinite(s).all() and np.isfinite(t).all()):
        raise ValueError("bytes and seconds must be finite numbers")
    return s, t


def _medians(size, seconds) -> tuple[np.ndarray, np.ndarray]:
    """The distinct sizes, ascending, and the median time of each."""
    s, t = _arrays(size, seconds)
    sizes, which = np.unique(s, return_inverse=True)
    return sizes, np.array([np.median(t[which == i]) for i in range(sizes.size)])


def hockney_fit(size, seconds) -> HockneyFit:
    """Least-squares fit of T = alpha + s / beta to the median time (seconds) of each message
    size (bytes): pass the raw samples, repeated sizes are reduced to their median. Needs at
    least two distinct sizes (ValueError otherwise). A slope that is not positive gives
    beta = inf (see HockneyFit).
    """
    s, t = _medians(size, seconds)
    if s.size < 2:
        raise ValueError(f"a Hockney fit needs at least 2 distinct sizes (got {s.size})")
    n = s.size
    design = np.column_stack([np.ones(n), s])
    coef, *_ = np.linalg.lstsq(design, t, rcond=None)
    alpha, slope = float(coef[0]), float(coef[1])
    resid = t - design @ coef
    ssr = float(resid @ resid)
    dof = n - 2
    if dof > 0:
        cov = np.linalg.inv(design.T @ design) * (ssr / dof)
        alpha_err, slope_err = float(np.sqrt(cov[0, 0])), float(np.sqrt(cov[1, 1]))
    else:
        alpha_err = slope_err = float("nan")
    positive = slope > 0
    return HockneyFit(
        alpha=alpha,
        beta=1.0 / slope if positive else float("inf"),
        alpha_err=alpha_err,
        beta_err=slope_err / slope**2 if positive else float("nan"),
        residual=ssr,
        n=n,
        min_bytes=float(s.min()),
        max_bytes=float(s.max()),
        slope=slope,
    )


@dataclass(frozen=True)
class PiecewiseHockney:
    """Two Hockney lines, `below` for s < switch_bytes and `above` for s >= switch_bytes."""

    switch_bytes: float
    below: HockneyFit
    above: HockneyFit

    @property
    def residual(self) -> float:
        return self.below.residual + self.above.residual

    def predict(self, size) -> np.ndarray:
        s = np.asarray(size, dtype=float)
        return np.where(s < self.switch_bytes, self.below.predict(s), self.above.predict(s))


def find_protocol_switch(size, seconds, min_points: int = MIN_POINTS) -> float:
    """The message size where a two-piece Hockney fit best splits the sweep.

    Tries every distinct size as the first size of the upper piece, keeping at least
    `min_points` distinct sizes on each side, and returns the one with the smallest total sum
    of squared residuals of the two straight-line fits to the median time of each size. The residuals are relative
    ((T - fit) / T, via a fit to log-spaced data weighted by 1/T), so the microsecond-scale
    small messages count as much as the millisecond-scale large ones. Raises ValueError with
    fewer than 2 * min_points distinct sizes.
    """
    s, t = _medians(size, seconds)
    if (t <= 0).any():
        raise ValueError("times must be positive")
    sizes = s
    if sizes.size < 2 * min_points:
        raise ValueError(
            f"finding a protocol switch needs at least {2 * min_points} distinct sizes "
            f"({min_points} each side); got {sizes.size}"
        )
    w = 1.0 / t  # relative residuals: scale each point's equation by 1/T
    best, best_cost = float(sizes[min_points]), np.inf
    for i in range(min_points, sizes.size - min_points + 1):
        cut = sizes[i]
        lo, hi = s < cut, s >= cut
        cost = 0.0
        for m in (lo, hi):
            design = np.column_stack([w[m], s[m] * w[m]])
            coef, *_ = np.linalg.lstsq(design, t[m] * w[m], rcond=None)
            r = t[m] * w[m] - design @ coef
            cost += float(r @ r)
        if cost < best_cost:
            best, best_cost = float(cut), cost
    return best


def piecewise_hockney(size, seconds, switch_bytes: float | None = None) -> PiecewiseHockney:
    """Hockney fits (of the median time of each size) below and above the protocol switch
    (found with find_protocol_switch unless given): T = alpha_1 + s / beta_1 for s < switch,
    alpha_2 + s / beta_2 above."""
    s, t = _arrays(size, seconds)
    cut = find_protocol_switch(s, t) if switch_bytes is None else float(switch_bytes)
    lo, hi = s < cut, s >= cut
    return PiecewiseHockney(cut, hockney_fit(s[lo], t[lo]), hockney_fit(s[hi], t[hi]))


def aggregated_time(alpha: float, beta: float, volume, k=1):
    """Hockney time for `volume` bytes sent as k messages of volume/k bytes: k*alpha + V/beta.

    One message of V bytes costs alpha + V/beta; k messages pay the latency k times and the same
    bandwidth term, so aggregating (k -> 1) saves (k - 1) * alpha. Works on numbers or arrays.
    """
    if beta <= 0:
        raise ValueError(f"beta must be positive (got {beta})")
    return np.asarray(k, dtype=float) * alpha + np.asarray(volume, dtype=float) / beta
