"""Amdahl inside a rank, fitted to Stathopoulos 2010, Table 4.32 (IRS on the XT6, 216 domains on 216 cores).

With T threads per process at a fixed core count, each process holds T domains; a fraction f
of its work runs on all T threads and 1 - f on one, so its USER time is

    U(T) = U1 (f + (1 - f) T) = U1 (T - (T - 1) f),

a straight line in T with intercept a = U1 f and slope b = U1 (1 - f). Two honest fits differ:
a free line (U1 = a + b, f = a / (a + b)) and a line forced through the measured one-thread
time (only the slope is fitted). Launches nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AmdahlFit:
    """f: the threaded fraction; u1: U(1) of the fitted line (s); how: 'free' or 'fixed';
    residual: the sum of squared residuals (s^2)."""

    f: float
    u1: float
    how: str
    residual: float

    def predict(self, threads) -> np.ndarray:
        return user_time(threads, self.u1, self.f)


def user_time(threads, u1: float, f: float):
    """U(T) = U1 (T - (T - 1) f) for a number or an array of thread counts."""
    t = np.asarray(threads, dtype=float)
    return u1 * (t - (t - 1.0) * f)


def _residual(threads, user, u1: float, f: float) -> float:
    r = np.asarray(user, dtype=float) - user_time(threads, u1, f)
    return float(r @ r)


def fit_free(threads, user) -> AmdahlFit:
    """Least squares line U = a + b T; U1 = a + b is fitted, not the measured U(1)."""
    b, a = np.polyfit(np.asarray(threads, dtype=float), np.asarray(user, dtype=float), 1)
    u1 = a + b
    return AmdahlFit(f=float(a / u1), u1=float(u1), how="free",
                     residual=_residual(threads, user, u1, a / u1))  # fmt: skip


def fit_fixed(threads, user, u1: float) -> AmdahlFit:
    """Least squares slope through (1, u1): U - u1 = u1 (1 - f)(T - 1)."""
    x = np.asarray(threads, dtype=float) - 1.0
    y = np.asarray(user, dtype=float) - u1
    slope = float(x @ y / (x @ x))
    f = 1.0 - slope / u1
    return AmdahlFit(f=f, u1=float(u1), how="fixed", residual=_residual(threads, user, u1, f))


def table_4_32(frame) -> tuple[np.ndarray, np.ndarray]:
    """Threads per process and USER seconds from the reference table 000-table-4.32."""
    return frame["threads"].to_numpy(float), frame["user_s"].to_numpy(float)
