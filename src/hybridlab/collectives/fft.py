"""The serial numpy reference for the distributed 3-D FFT (kernels_c/fft3d.c): the same input
formula, numpy.fft.fftn, and the same weighted checksum the kernel reports.

    from hybridlab.collectives.fft import fft_checksum, fft_input, reference_fft
    X = reference_fft(16)                 # X[k1, k2, k3], numpy's forward transform
    re, im = fft_checksum(X)              # what fft3d's "check" record says for n = 16

Launches nothing.
"""

from __future__ import annotations

import numpy as np


def fft_input(n: int) -> np.ndarray:
    """x[j1, j2, j3] = sin(0.1 j1 + 0.37 j2 + 0.73 j3 + 0.011 j1 j3) + i cos(0.05 j1 j2 - 0.2 j3),
    the grid fft3d fills (each rank its slab of j3)."""
    if n < 2:
        raise ValueError(f"n must be at least 2 (got {n})")
    j1, j2, j3 = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
    re = np.sin(0.1 * j1 + 0.37 * j2 + 0.73 * j3 + 0.011 * j1 * j3)
    im = np.cos(0.05 * j1 * j2 - 0.2 * j3)
    return re + 1j * im


def reference_fft(n: int) -> np.ndarray:
    """numpy.fft.fftn of fft_input(n): X[k1, k2, k3] with the kernel's sign (exp(-2 pi i jk/n))."""
    return np.fft.fftn(fft_input(n))


def checksum_weights(n: int) -> np.ndarray:
    """w[k1, k2, k3] = 1 + ((k1 + 2 k2 + 3 k3) mod 7): every point counts, each differently."""
    k1, k2, k3 = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
    return 1.0 + ((k1 + 2 * k2 + 3 * k3) % 7)


def fft_checksum(transform: np.ndarray) -> tuple[float, float]:
    """(sum of w * Re X, sum of w * Im X) over the whole grid, as fft3d's check record."""
    x = np.asarray(transform)
    if x.ndim != 3 or len(set(x.shape)) != 1:
        raise ValueError(f"a cube n x n x n is needed (got shape {x.shape})")
    w = checksum_weights(x.shape[0])
    return float(np.sum(w * x.real)), float(np.sum(w * x.imag))


def points_to_array(points, n: int) -> np.ndarray:
    """The kernel's dump=1 records (columns k1, k2, k3, re, im) as an array X[k1, k2, k3]."""
    out = np.full((n, n, n), np.nan + 1j * np.nan)
    k = (points["k1"].to_numpy(int), points["k2"].to_numpy(int), points["k3"].to_numpy(int))
    out[k] = points["re"].to_numpy(float) + 1j * points["im"].to_numpy(float)
    return out
