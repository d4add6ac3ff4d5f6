"""Lab 11: wrong answers (tests/wrong_answers/__init__.py), at least two per hidden part."""

from solutions_c import SHM_JACOBI
from solutions_c import SHM_SAVING as SAVING
from wrong_answers import c_cell, changed, wrong

# (a)'s right answer, fence version: the mistakes below change one place of it
SHM = c_cell("SHM_C", "shm_halo", SHM_JACOBI)

A = {"hidden_shm_jacobi"}
B = {"hidden_predict_saving"}


WRONG = [
    wrong("shm_jacobi",
          changed(SHM, "    for (long it = 0; it < iterations; it++) {\n        MPI_Win_fence(0, win);\n",
                  "    MPI_Win_fence(0, win);  /* once: the blocks are laid out */\n"
                  "    for (long it = 0; it < iterations; it++) {\n"),
          A, "one fence before the loop, none per iteration: the delayed neighbour's rows are read stale", reason='stale reads'),
    wrong("shm_jacobi",
          changed(SHM, "shm_sweep(mine, above, below, it);", "shm_sweep(mine, below, above, it);"),
          A, "the neighbours' blocks handed to the sweep the wrong way round (above and below swapped)",
          reason="the grid's edge: pass NULL for `above`"),
    wrong("shm_jacobi",
          changed(changed(SHM, "        if (up != MPI_PROC_NULL)\n", "        if (0)\n"),
                  "        if (down != MPI_PROC_NULL)\n", "        if (0)\n"),
          A, "no message to or from a neighbour on another node: its halo rows stay NaN",
          reason='wrong result'),
    wrong("predict_saving",
          changed(SAVING, "shared = 2 * ny * (nx + 2) * 8 + 2 * (nx + 2) * 8", "shared = 2 * ny * (nx + 2) * 8"),
          B, "the grid's two boundary rows the window still keeps forgotten", reason='not the bytes one node saves'),
    wrong("predict_saving",
          changed(SAVING, "pure = 2 * (ny + 2 * ranks) * (nx + 2) * 8", "pure = (ny + 2 * ranks) * (nx + 2) * 8"),
          B, "one array (a) counted for pure MPI, not a and b", reason='not the bytes one node saves'),
    wrong("predict_saving",
          changed(SAVING, '* 1e6\n', '\n'),
          B, "the measured saving left in MB, not bytes", reason='the PSS per node'),
]
