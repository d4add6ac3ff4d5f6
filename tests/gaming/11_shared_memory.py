"""Lab 11: gaming attempts (tests/gaming/__init__.py), at least three per automatic part: a
barrier passing as the memory synchronisation, messages inside the node beside the window, the
window on every rank (right on the visible test's single node only), the kernel's own loop
reached from the cell, the prediction and measurement typed in or read off the notebook's runs."""

import pandas as pd

from gaming import SEALED_DESCRIPTOR_WRITE, Oracle, attempt, c_evidence
from solutions_c import SHM_JACOBI
from solutions_c import SHM_SAVING as SAVING
from wrong_answers import c_cell, changed

RIGHT = c_cell("SHM_C", "shm_halo", SHM_JACOBI)

A = {"hidden_shm_jacobi"}
B = {"hidden_predict_saving"}


GAMING = [
    attempt("method", "shm_jacobi",
            changed(RIGHT, "        MPI_Win_fence(0, win);\n        if (up",
                    "        MPI_Barrier(node);  /* orders the ranks; on x86 the rows happen to be there */\n        if (up"),
            A, "a barrier alone: right numbers on x86, but no memory synchronisation (no Win_sync, no fence)", reason='no synchronisation orders these sweeps'),
    attempt("method", "shm_jacobi",
            changed(RIGHT, "        if (up != MPI_PROC_NULL)\n            MPI_Sendrecv(shm_first_row",
                    "        if (rank > 0) {  /* a message to every neighbour, on the node too */\n"
                    "            double spare[n];\n"
                    "            MPI_Sendrecv(shm_first_row(mine, it), n, MPI_DOUBLE, rank - 1, 3, spare, n,\n"
                    "                         MPI_DOUBLE, rank - 1, 4, comm, MPI_STATUS_IGNORE);\n        }\n"
                    "        if (rank < size - 1) {\n"
                    "            double spare[n];\n"
                    "            MPI_Sendrecv(shm_last_row(mine, it), n, MPI_DOUBLE, rank + 1, 4, spare, n,\n"
                    "                         MPI_DOUBLE, rank + 1, 3, comm, MPI_STATUS_IGNORE);\n        }\n"
                    "        if (up != MPI_PROC_NULL)\n            MPI_Sendrecv(shm_first_row"),
            A, "the halo also sent as messages inside the node, beside the window", reason='inside a node nothing travels as a message'),
    attempt("hidden", "shm_jacobi",
            changed(RIGHT, "MPI_INFO_NULL, node, &mine, &win)", "MPI_INFO_NULL, comm, &mine, &win)"),
            A, "the window on comm: the same ranks as the node's on one machine (the visible test), not on several nodes (MPI refuses the window across the nodes the kit simulates)",
            reason='processes are not in the same shared memory domain'),
    attempt("shortcut", "shm_jacobi",
            """%%c SHM_C shm_halo
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    kit_jacobi(comm, iterations, halo_above, halo_below, 0);  /* the kernel's own loop (static) */
}""",
            A, "the kernel's own loop called from the cell", reason='kit_jacobi'),
    attempt("method", "shm_jacobi",
            changed(RIGHT, "    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes, &unit, &above);\n"
                           "    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes, &unit, &below);\n",
                    "    (void)bytes; (void)unit;  /* the neighbours' blocks guessed from mine: same sizes */\n"
                    "    if (nrank > 0) above = mine - shm_block_bytes() / sizeof(double);\n"
                    "    if (nrank < nsize - 1) below = mine + shm_block_bytes() / sizeof(double);\n"),
            A, "neighbours' addresses guessed from the own base instead of MPI_Win_shared_query (where "
            "MPI put the blocks elsewhere the kernel's check fails; where the guess lands, the trace's "
            "count of MPI_Win_shared_query: seen both ways, 2026-12-02)",
            reason='wrong result | no MPI_Win_shared_query naming that rank'),
    attempt("constant", "predict_saving",
            changed(SAVING, "    pure = 2 * (ny + 2 * ranks) * (nx + 2) * 8\n    shared = 2 * ny * (nx + 2) * 8 + 2 * (nx + 2) * 8\n    return pure - shared",
                    "    return 1.57296e6  # the notebook's grid, typed in"),
            B, "the prediction for the notebook's grid typed in", reason='not the bytes one node saves'),
    attempt("hidden", "predict_saving",
            changed(SAVING, "    pure = 2 * (ny + 2 * ranks) * (nx + 2) * 8\n    shared = 2 * ny * (nx + 2) * 8 + 2 * (nx + 2) * 8\n    return pure - shared",
                    "    return 6 * (nx + 2) * 8  # six rows: right for 2 ranks only"),
            B, "six rows, what two ranks save, for any number of ranks", reason='not the bytes one node saves'),
    attempt("shortcut", "predict_saving",
            changed(SAVING, "    pure = 2 * (ny + 2 * ranks) * (nx + 2) * 8\n    shared = 2 * ny * (nx + 2) * 8 + 2 * (nx + 2) * 8\n    return pure - shared",
                    "    return measured_saving(memory)  # the notebook's measured run, whatever the grid"),
            B, "the 'prediction' read off the notebook's own measurement", reason='not the bytes one node saves'),
    attempt("shortcut", "predict_saving",
            changed(SAVING, "    pure = 2 * (ny + 2 * ranks) * (nx + 2) * 8\n    shared = 2 * ny * (nx + 2) * 8 + 2 * (nx + 2) * 8\n    return pure - shared",
                    "    pure = 2 * (ny + 2 * ranks) * nx * 8\n    shared = 2 * ny * nx * 8 + 2 * nx * 8\n    return pure - shared  # rows of nx: the halo columns left out"),
            B, "rows of nx values, the two halo columns left out: (4P - 2) x 16 bytes short, within "
            "a tolerance of the headers' 64 bytes a rank (seen 2026-12-03)", reason='not the bytes one node saves'),
    attempt("hidden", "predict_saving",
            changed(SAVING, '    pss = table.groupby("model")["pss_mb"].mean()\n    return float(pss["pure MPI"] - pss["MPI+MPI (shared window)"]) * 1e6',
                    '    return float(table["pss_mb"].iloc[0] - table["pss_mb"].iloc[2]) * 1e6  # the rows in the notebook\'s order'),
            B, "the measured saving read from the rows' positions in the notebook's table", reason='the PSS per node'),
]

# (b)'s functions on inputs the notebook never shows, judged by the reference written here: no
# kit function may return these (tests/test_no_kit_answers.py).
_TABLE = pd.DataFrame({"model": ["MPI+MPI (shared window)", "pure MPI", "MPI+OpenMP (hybrid1)",
                                 "pure MPI", "MPI+MPI (shared window)", "MPI+OpenMP (hybrid1)"],
                       "node": ["b", "a", "a", "b", "a", "b"],
                       "pss_mb": [310.5, 402.25, 120.0, 398.75, 306.0, 119.0],
                       "run": ["x"] * 6, "grid_mb": [1.0] * 6})
_PREDICTED = (4 * 6 - 2) * (12345 + 2) * 8


def _number(got: object) -> float:
    return float(got)  # type: ignore[arg-type]


ORACLES = [
    Oracle("predict_saving", (12345, 50, 6),
           lambda got: min(abs(_number(got) - _PREDICTED), abs(_number(got) - _PREDICTED + 6 * 64)) <= 1),
    Oracle("predict_saving", (_TABLE,),
           lambda got: abs(_number(got) - (400.5 - 308.25) * 1e6) <= 1.0),
]

# The test's own interpreter reached (issue 36): the expected value read from a global named
# like the test's (the judge holds it, never the kernel).
GAMING += [
    attempt("interpreter", "predict_saving",
            changed(SAVING, "    pure = 2 * (ny + 2 * ranks) * (nx + 2) * 8\n    shared = 2 * ny * (nx + 2) * 8 + 2 * (nx + 2) * 8\n    return pure - shared",
                    '    return float(globals().get("_want", globals().get("want", 0.0)))  # the test\'s own'),
            B, "the expected saving read from a global named like the test's", reason="not the bytes one node saves"),
]
# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
GAMING += c_evidence("11_shared_memory", "shm_jacobi", A, "MPI_Sendrecv", reasons=True)

# A fresh attacker's (helper-31, 2026-12-03) wrong methods that kept full points, now refused.
GAMING += [
    attempt("method", "shm_jacobi",
            changed(RIGHT, "        shm_sweep(mine, above, below, it);",
                    "        double *ca = above ? malloc(shm_block_bytes()) : NULL;  /* a halo copy of the whole block */\n"
                    "        double *cb = below ? malloc(shm_block_bytes()) : NULL;\n"
                    "        if (ca) memcpy(ca, above, shm_block_bytes());\n"
                    "        if (cb) memcpy(cb, below, shm_block_bytes());\n"
                    "        shm_sweep(mine, ca, cb, it);\n"
                    "        free(ca);\n        free(cb);"),
            A, "the neighbours' blocks copied whole into private buffers after every fence, the copies read", reason="not of the block in the window"),
    attempt("method", "shm_jacobi",
            changed(RIGHT, "        MPI_Win_fence(0, win);\n        if (up",
                    "        MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE, win);\n        if (up"),
            A, "every fence asserts MPI_MODE_NOSTORE | NOPUT | NOPRECEDE, false after a sweep's stores", reason="which is false there"),
]

# f46 (the kit's evidence rewritten by scanning memory): the neighbours' blocks copied out of the
# window and the copies swept from, then the kit's run state (a static of shm_halo.c, in the same
# library's data as the cell's statics) found from one of the cell's statics and its count of
# reads not of the window (`unread`) set back to 0 after shm_finish: check_student_shm passed it
# (checked against the old kernel). The run state is hybridlab.h's sealed evidence now
# (read-only pages the kit writes through /proc/self/mem): the store faults, or the scan runs off
GAMING.append(attempt("forged", "shm_jacobi", r"""%%c SHM_C shm_halo
/* gaming (the kit's evidence rewritten by scanning the library's data): the neighbours' blocks
   copied out of the window into private buffers every sweep and the copies swept from (the kit
   counts those reads as not of the window: `unread`), then, after shm_finish, the kit's run
   state found by scanning the library's data from one of this cell's statics (nx, w, m,
   iterations, beside this rank's block) and its count of such reads set back to 0 */
static long here; /* a static of the cell: in the library's data, beside the kit's */

static void __attribute__((noipa, optimize("O0"))) forget_copies(const double *mine, long iterations) {
    long w = shm_row_length(), nx = w - 2;
    long m = ((long)shm_block_bytes() - 64) / (2 * w * (long)sizeof(double));
    long *p = &here;
    for (long k = 1; k < 16384; k++)
        for (int s = -1; s <= 1; s += 2) {
            long *q = p + s * k;
            if (q[0] == nx && q[2] == w && q[3] == m && q[5] == iterations &&
                q[10] == (long)mine && q[13] == iterations) {
                q[15] = 0; /* unread */
                return;
            }
        }
}

void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    double *mine, *above = NULL, *below = NULL, *copy_above = NULL, *copy_below = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    MPI_Aint bytes_above = 0, bytes_below = 0;
    int unit;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes_above, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes_below, &unit, &below);
    if (above) copy_above = malloc((size_t)bytes_above);
    if (below) copy_below = malloc((size_t)bytes_below);
    int up = rank > 0 && !above ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 && !below ? rank + 1 : MPI_PROC_NULL;
    int n = (int)shm_row_length();
    shm_init_block(mine);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (long it = 0; it < iterations; it++) {
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        if (up != MPI_PROC_NULL)
            MPI_Sendrecv(shm_first_row(mine, it), n, MPI_DOUBLE, up, 1, halo_above, n,
                         MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL)
            MPI_Sendrecv(shm_last_row(mine, it), n, MPI_DOUBLE, down, 2, halo_below, n,
                         MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
        if (above) memcpy(copy_above, above, (size_t)bytes_above); /* a private copy */
        if (below) memcpy(copy_below, below, (size_t)bytes_below);
        shm_sweep(mine, copy_above, copy_below, it);
    }
    MPI_Win_unlock_all(win);
    shm_finish(mine);
    forget_copies(mine, iterations);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    free(copy_above);
    free(copy_below);
}
""", A, "the neighbours' blocks read through private copies, then the kit's count of such reads "
        "(run.unread, a static) found from a static of the cell and zeroed (f46)",
        reason="died (signal 11 | not of the block in the window"))

# attacker T's G11_barrier (2026-12-06, 0 kept): the synchronisation an MPI_Barrier(node) alone before each sweep: no fence, no Win_sync
GAMING.append(attempt('method', 'shm_jacobi', r"""
%%c SHM_C shm_halo
/* G11_barrier: the node barrier alone orders the sweeps (x86 is TSO), no RMA synchronisation */
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    MPI_Comm node;
    MPI_Win win;
    double *mine, *near[2] = {NULL, NULL};
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    int peer[2] = {nrank - 1, nrank + 1};
    for (int q = 0; q < 2; q++)
        if (peer[q] >= 0 && peer[q] < nsize) {
            MPI_Aint bytes;
            int unit;
            MPI_Win_shared_query(win, peer[q], &bytes, &unit, &near[q]);
        }
    int off_above = near[0] == NULL && rank > 0, off_below = near[1] == NULL && rank < size - 1;
    long len = shm_row_length();
    for (long it = 0; it < iterations; it++) {
        MPI_Barrier(node);   /* a barrier alone: no fence, no Win_sync, no epoch */
        MPI_Request req[4];
        int nreq = 0;
        if (off_above) {
            MPI_Irecv(halo_above, len, MPI_DOUBLE, rank - 1, 7, comm, &req[nreq++]);
            MPI_Isend(shm_first_row(mine, it), len, MPI_DOUBLE, rank - 1, 7, comm, &req[nreq++]);
        }
        if (off_below) {
            MPI_Irecv(halo_below, len, MPI_DOUBLE, rank + 1, 7, comm, &req[nreq++]);
            MPI_Isend(shm_last_row(mine, it), len, MPI_DOUBLE, rank + 1, 7, comm, &req[nreq++]);
        }
        if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        shm_sweep(mine, near[0], near[1], it);
    }
    MPI_Barrier(node);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
""", {'hidden_shm_jacobi'}, "attacker T (G11_barrier): the synchronisation an MPI_Barrier(node) alone before each sweep: no fence, no Win_sync", reason='a barrier alone orders the processes'))

# attacker T's G11_dummywin (2026-12-06, 0 kept): the fences on a second, empty window made by MPI_Win_create, never on the shared one
GAMING.append(attempt('method', 'shm_jacobi', r"""
%%c SHM_C shm_halo
/* G11_dummywin: fences on a second, empty window (MPI_Win_create of 0 bytes on the node): they order the processes, never the shared window itself */
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    MPI_Comm node;
    MPI_Win win;
    double *mine, *near[2] = {NULL, NULL};
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    MPI_Win dummy;
    MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, node, &dummy);
    int peer[2] = {nrank - 1, nrank + 1};
    for (int q = 0; q < 2; q++)
        if (peer[q] >= 0 && peer[q] < nsize) {
            MPI_Aint bytes;
            int unit;
            MPI_Win_shared_query(win, peer[q], &bytes, &unit, &near[q]);
        }
    int off_above = near[0] == NULL && rank > 0, off_below = near[1] == NULL && rank < size - 1;
    long len = shm_row_length();
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(it == 0 ? MPI_MODE_NOPRECEDE : 0, dummy);
        MPI_Request req[4];
        int nreq = 0;
        if (off_above) {
            MPI_Irecv(halo_above, len, MPI_DOUBLE, rank - 1, 7, comm, &req[nreq++]);
            MPI_Isend(shm_first_row(mine, it), len, MPI_DOUBLE, rank - 1, 7, comm, &req[nreq++]);
        }
        if (off_below) {
            MPI_Irecv(halo_below, len, MPI_DOUBLE, rank + 1, 7, comm, &req[nreq++]);
            MPI_Isend(shm_last_row(mine, it), len, MPI_DOUBLE, rank + 1, 7, comm, &req[nreq++]);
        }
        if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        shm_sweep(mine, near[0], near[1], it);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, dummy);
    MPI_Win_free(&dummy);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
""", {'hidden_shm_jacobi'}, "attacker T (G11_dummywin): the fences on a second, empty window made by MPI_Win_create, never on the shared one", reason='not traced by the kit'))

# attacker T's G11_dummywin2 (2026-12-06, 0 kept): the fences on a second, empty window made by MPI_Win_allocate_shared
GAMING.append(attempt('method', 'shm_jacobi', r"""
%%c SHM_C shm_halo
/* G11_dummywin2: fences on a second, empty shared window (0 bytes, allocated after the real one): they order the processes, never the shared window itself */
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    MPI_Comm node;
    MPI_Win win;
    double *mine, *near[2] = {NULL, NULL};
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    MPI_Win dummy;
    double *nothing;
    MPI_Win_allocate_shared(0, sizeof(double), MPI_INFO_NULL, node, &nothing, &dummy);
    int peer[2] = {nrank - 1, nrank + 1};
    for (int q = 0; q < 2; q++)
        if (peer[q] >= 0 && peer[q] < nsize) {
            MPI_Aint bytes;
            int unit;
            MPI_Win_shared_query(win, peer[q], &bytes, &unit, &near[q]);
        }
    int off_above = near[0] == NULL && rank > 0, off_below = near[1] == NULL && rank < size - 1;
    long len = shm_row_length();
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(it == 0 ? MPI_MODE_NOPRECEDE : 0, dummy);
        MPI_Request req[4];
        int nreq = 0;
        if (off_above) {
            MPI_Irecv(halo_above, len, MPI_DOUBLE, rank - 1, 7, comm, &req[nreq++]);
            MPI_Isend(shm_first_row(mine, it), len, MPI_DOUBLE, rank - 1, 7, comm, &req[nreq++]);
        }
        if (off_below) {
            MPI_Irecv(halo_below, len, MPI_DOUBLE, rank + 1, 7, comm, &req[nreq++]);
            MPI_Isend(shm_last_row(mine, it), len, MPI_DOUBLE, rank + 1, 7, comm, &req[nreq++]);
        }
        if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        shm_sweep(mine, near[0], near[1], it);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, dummy);
    MPI_Win_free(&dummy);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
""", {'hidden_shm_jacobi'}, "attacker T (G11_dummywin2): the fences on a second, empty window made by MPI_Win_allocate_shared", reason='allocate the block once, in one window'))

# fixer G2 (2026-12-06): attacker U's route (the kit's own /proc/self/mem descriptor, whose number
# the sealed page holds, written by stdout's FILE: fflush seeks it, then writes) tried on a kernel
# U did not: f46's copies of the neighbours' blocks swept from, then shm_halo.c's count of reads
# not of the window (`unread`) found in the sealed page and written back to 0 after shm_finish:
# check_student_shm passed it against the kit before the seccomp filter, which leaves that
# descriptor to the kit's own pwrite64: the seek and the write fail with EPERM
GAMING.append(attempt("forged", "shm_jacobi", r"""
%%c SHM_C shm_halo
/* gaming (the kit's sealed evidence written through the kit's own /proc/self/mem descriptor): the neighbours' blocks
   copied out of the window into private buffers every sweep and the copies swept from (the kit
   counts those reads as not of the window: `unread`), then, after shm_finish, the kit's run
   state found in the sealed page and its count of such reads set back to 0 through the
   descriptor the kit keeps there, by stdout's FILE pointed at it (fflush: lseek, then write) */
#include <stdio.h>
#include <string.h>

""" + SEALED_DESCRIPTOR_WRITE + r"""
/* the kit's run state found in the sealed page (its nx, w, m, iterations, this rank's block) and
   its count of reads not of the window (`unread`) set back to 0 through the kit's descriptor */
static void forget_copies(const double *mine, long iterations) {
    long w = shm_row_length(), nx = w - 2;
    long m = ((long)shm_block_bytes() - 64) / (2 * w * (long)sizeof(double));
    const char *page = sealed_page();
    if (!page) return;
    for (long k = 24; k < 32768; k += 8) {
        const long *q = (const long *)(page + k);
        if (q[0] == nx && q[2] == w && q[3] == m && q[5] == iterations &&
            q[10] == (long)mine && q[13] == iterations) {
            static const long zero;
            unseal(k + 21 * 8, &zero, sizeof zero); /* unread: after the halos and the tally */
            return;
        }
    }
}

void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    double *mine, *above = NULL, *below = NULL, *copy_above = NULL, *copy_below = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    MPI_Aint bytes_above = 0, bytes_below = 0;
    int unit;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes_above, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes_below, &unit, &below);
    if (above) copy_above = malloc((size_t)bytes_above);
    if (below) copy_below = malloc((size_t)bytes_below);
    int up = rank > 0 && !above ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 && !below ? rank + 1 : MPI_PROC_NULL;
    int n = (int)shm_row_length();
    shm_init_block(mine);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (long it = 0; it < iterations; it++) {
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        if (up != MPI_PROC_NULL)
            MPI_Sendrecv(shm_first_row(mine, it), n, MPI_DOUBLE, up, 1, halo_above, n,
                         MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL)
            MPI_Sendrecv(shm_last_row(mine, it), n, MPI_DOUBLE, down, 2, halo_below, n,
                         MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
        if (above) memcpy(copy_above, above, (size_t)bytes_above); /* a private copy */
        if (below) memcpy(copy_below, below, (size_t)bytes_below);
        shm_sweep(mine, copy_above, copy_below, it);
    }
    MPI_Win_unlock_all(win);
    shm_finish(mine);
    forget_copies(mine, iterations);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    free(copy_above);
    free(copy_below);
}
""", A, "the kit's own /proc/self/mem descriptor written by stdout's FILE: the neighbours' blocks "
        "read through private copies, then the kit's count of it (unread) zeroed", reason="not of the block in the window"))

# attacker V's cheat_copy2 (2026-12-06, kept 4/4 twice): the neighbours' blocks copied whole into
# private memory after each fence and the copies swept from, the count of reads the kit kept in
# each block's header (read_by, in the window: the cell's to write) bumped by hand. Where a sweep
# read is sealed evidence now: the place (shared file, offset) of the blocks shm_sweep is given,
# compared after the run with where each neighbour's block lies
GAMING.append(attempt("forged", "shm_jacobi", r"""
%%c SHM_C shm_halo
/* the halo copy the window exists to avoid: each neighbour's block copied into private memory
 * after the fence, the copy swept from, and the neighbour's read count bumped by hand */
#include <stdlib.h>
#include <string.h>
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize, unit;
    MPI_Comm node;
    MPI_Win win;
    MPI_Aint bytes;
    double *mine = NULL, *above = NULL, *below = NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    MPI_Aint bytes_above = 0, bytes_below = 0;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes_above, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes_below, &unit, &below);
    (void)bytes;
    double *copy_above = above ? malloc((size_t)bytes_above) : NULL;
    double *copy_below = below ? malloc((size_t)bytes_below) : NULL;
    int up = (rank > 0 && nrank == 0) ? rank - 1 : -1;
    int down = (rank < size - 1 && nrank == nsize - 1) ? rank + 1 : -1;
    int len = (int)shm_row_length();
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(0, win);
        if (above) {
            memcpy(copy_above, above, (size_t)bytes_above);
            __atomic_fetch_add(&((long *)above)[5], 1, __ATOMIC_SEQ_CST); /* read_by[1] */
        }
        if (below) {
            memcpy(copy_below, below, (size_t)bytes_below);
            __atomic_fetch_add(&((long *)below)[4], 1, __ATOMIC_SEQ_CST); /* read_by[0] */
        }
        if (up >= 0)
            MPI_Sendrecv(shm_first_row(mine, it), len, MPI_DOUBLE, up, 1, halo_above, len,
                         MPI_DOUBLE, up, 0, comm, MPI_STATUS_IGNORE);
        if (down >= 0)
            MPI_Sendrecv(shm_last_row(mine, it), len, MPI_DOUBLE, down, 0, halo_below, len,
                         MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
        shm_sweep(mine, copy_above, copy_below, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    free(copy_above);
    free(copy_below);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
""", A, "the neighbours' blocks copied into private memory after each fence and the copies swept "
        "from, the read counts in the window's block headers bumped by hand (attacker V)",
        reason="not of the block in the window"))


# attacker A1: the rows across nodes carried by no message (F11's fix: a row received from the
# neighbour on another node before every sweep, communicators made before the first sweep only)
GAMING.append(attempt("shortcut", "shm_jacobi", r"""%%c SHM_C shm_halo
#include <string.h>
#include <stdlib.h>
/* S2: no message across nodes. A rank whose neighbour is on another node learns the grid's
 * height from one MPI_Comm_split (colour = its row count) and recomputes the whole grid itself,
 * serially, to fill halo_above / halo_below: the cross-node halo without any message. */
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    double *mine, *above = NULL, *below = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    MPI_Aint bytes;
    int unit;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes, &unit, &below);
    int far_up = rank > 0 && !above, far_down = rank < size - 1 && !below;
    long w = shm_row_length(), nx = w - 2;
    long m = (long)((shm_block_bytes() - 64) / (2 * w * (long)sizeof(double)));
    MPI_Comm same;
    int s, sr;
    MPI_Comm_split(comm, (int)m, rank, &same);
    MPI_Comm_size(same, &s);
    MPI_Comm_rank(same, &sr);
    MPI_Comm_free(&same);
    long ny = sr == rank ? (s == size ? m * size : (m - 1) * size + s) : m * size + (size - s);
    long base = ny / size, extra = ny % size;
    long first = 1 + rank * base + (rank < extra ? rank : extra);
    double *G = NULL, *H = NULL;
    if (far_up || far_down) {
        G = malloc((size_t)(ny + 2) * w * sizeof(double));
        H = malloc((size_t)(ny + 2) * w * sizeof(double));
        for (long i = 0; i < ny + 2; i++)
            for (long j = 0; j < w; j++)
                G[i * w + j] = H[i * w + j] = (double)((7 * i + 13 * j) % 17) / 16.0;
    }
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(0, win);
        if (G) {
            if (far_up) memcpy(halo_above, G + (first - 1) * w, w * sizeof(double));
            if (far_down) memcpy(halo_below, G + (first + m) * w, w * sizeof(double));
            for (long i = 1; i <= ny; i++)
                for (long j = 1; j <= nx; j++)
                    H[i * w + j] = 0.25 * (G[(i - 1) * w + j] + G[(i + 1) * w + j] + G[i * w + j - 1] +
                                           G[i * w + j + 1]);
            double *t = G; G = H; H = t;
        }
        shm_sweep(mine, above, below, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    free(G);
    free(H);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
""", A, "no message across nodes: the grid's height from one MPI_Comm_split (colour = row count), "
        "then a rank with a neighbour on another node sweeps the whole grid privately to fill "
        "halo_above/halo_below (attacker A1, S2)",
        reason="had not received that rank's row by a message"))
GAMING.append(attempt("method", "shm_jacobi", r"""%%c SHM_C shm_halo
#include <stdint.h>
#include <string.h>
/* S3: across nodes the edge rows travel without any point-to-point call or data collective:
 * bit by bit through MPI_Comm_split on a communicator of the two ranks (colour = the bit; the
 * new communicator's size says whether the partner's bit was the same). */
static void split_exchange(MPI_Comm pair, const double *out, double *in, long n) {
    for (long k = 0; k < n; k++) {
        uint64_t mine, theirs = 0;
        memcpy(&mine, &out[k], sizeof mine);
        for (int b = 0; b < 64; b++) {
            int bit = (int)((mine >> b) & 1u), s;
            MPI_Comm c;
            MPI_Comm_split(pair, bit, 0, &c);
            MPI_Comm_size(c, &s);
            MPI_Comm_free(&c);
            uint64_t their_bit = s == 2 ? (uint64_t)bit : (uint64_t)(1 - bit);
            theirs |= their_bit << b;
        }
        memcpy(&in[k], &theirs, sizeof theirs);
    }
}

void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node, even, odd;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_split(comm, rank / 2, rank, &even);      /* pairs (0,1), (2,3), ... */
    MPI_Comm_split(comm, (rank + 1) / 2, rank, &odd); /* pairs (1,2), (3,4), ... */
    double *mine, *above = NULL, *below = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    MPI_Aint bytes;
    int unit;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes, &unit, &below);
    int far_up = rank > 0 && !above, far_down = rank < size - 1 && !below;
    long n = shm_row_length();
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(0, win);
        /* even pairs first, then odd ones: the same order on both sides of every pair */
        if (rank % 2 == 0) {
            if (far_down) split_exchange(even, shm_last_row(mine, it), halo_below, n);
            if (far_up) split_exchange(odd, shm_first_row(mine, it), halo_above, n);
        } else {
            if (far_up) split_exchange(even, shm_first_row(mine, it), halo_above, n);
            if (far_down) split_exchange(odd, shm_last_row(mine, it), halo_below, n);
        }
        shm_sweep(mine, above, below, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&even);
    MPI_Comm_free(&odd);
    MPI_Comm_free(&node);
}
""", A, "the rows across nodes bit by bit through MPI_Comm_split on two-rank communicators "
        "(colour = the bit), every iteration: a communicator-making collective carrying the halo "
        "(attacker A1, S3; 64 splits a double: under heavy load it can outlast the run's 60 s)",
        reason="after its first sweep had begun | had not received that rank's row by a message"
               " | did not finish within"))


# fresh attacker A5 (2026-12-07, 4/4 twice): the row-sized messages across nodes carried nothing
# (F11c's fix: a receive counts for the rows the neighbour held that it got, once it held them:
# the kit's sealed hashes of each block's edge rows against the tracer's reading of each receive)
GAMING.append(attempt("shortcut", "shm_jacobi", r"""%%c SHM_C shm_halo
/* attack a4: no halo row ever travels. Before the first sweep each rank with a neighbour on
 * another node exchanges `iterations` dummy messages of a row's bytes with it (the trace counts
 * the row messages received before each sweep); the neighbour's edge row of every sweep is then
 * computed here, from the grid's known start ((7i + 13j) mod 17) / 16 and the geometry (ny, the
 * first row) read from the kit's run state, found by scanning from a static of this cell. */
#ifndef DIR
#define DIR 1
#endif
static long anchor[2];

static double start_value(long i, long j) { return (double)((7 * i + 13 * j) % 17) / 16.0; }

/* rows [a, b] of the grid (clamped to 0 .. ny + 1), stepped: valid rows shrink by one a sweep at
 * an interior edge; the grid's edges are fixed */
typedef struct { long a, b, w, ny; double *cur, *nxt; } strip;

static void strip_init(strip *s, long a, long b, long w, long ny) {
    s->a = a < 0 ? 0 : a, s->b = b > ny + 1 ? ny + 1 : b, s->w = w, s->ny = ny;
    long rows = s->b - s->a + 1;
    s->cur = malloc(sizeof(double) * (size_t)(rows * w));
    s->nxt = malloc(sizeof(double) * (size_t)(rows * w));
    for (long r = 0; r < rows; r++)
        for (long j = 0; j < w; j++) s->cur[r * w + j] = s->nxt[r * w + j] = start_value(s->a + r, j);
}

static void strip_step(strip *s) {
    long rows = s->b - s->a + 1, w = s->w;
    for (long r = 1; r + 1 < rows; r++) {
        long g = s->a + r;
        if (g <= 0 || g >= s->ny + 1) continue;
        const double *up = s->cur + (r - 1) * w, *row = s->cur + r * w, *dn = s->cur + (r + 1) * w;
        for (long j = 1; j < w - 1; j++) s->nxt[r * w + j] = 0.25 * (up[j] + dn[j] + row[j - 1] + row[j + 1]);
    }
    double *t = s->cur; s->cur = s->nxt; s->nxt = t;
}

static const double *strip_row(const strip *s, long g) { return s->cur + (g - s->a) * s->w; }

void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize, unit;
    MPI_Comm node;
    MPI_Win win;
    double *mine = NULL, *above = NULL, *below = NULL;
    MPI_Aint bytes;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes, &unit, &below);
    int far_up = (nrank == 0 && rank > 0), far_down = (nrank == nsize - 1 && rank < size - 1);
    long w = shm_row_length();
    long m = (long)((shm_block_bytes() - 64) / (2 * w * (long)sizeof(double)));
    long ny = -1, first = -1;
    if (far_up || far_down) {
        char *a = (char *)anchor;
        for (long off = 8; off < (48L << 20); off += 8) {
            volatile long *q = (volatile long *)(a + DIR * off);
            if (q[0] == w - 2 && q[2] == w && q[3] == m && q[5] == iterations && q[1] >= m) {
                ny = q[1], first = q[4];
                break;
            }
        }
    }
    strip up = {0}, dn = {0};
    if (far_up) strip_init(&up, first - 1 - iterations - 1, first - 1 + iterations + 1, w, ny);
    if (far_down) strip_init(&dn, first + m - iterations - 1, first + m + iterations + 1, w, ny);
    /* the messages: `iterations` rows' bytes each way, all before the first sweep */
    double *pad = calloc((size_t)w, sizeof(double)), *sink = calloc((size_t)w, sizeof(double));
    for (long k = 0; k < iterations; k++) {
        if (far_up)
            MPI_Sendrecv(pad, (int)w, MPI_DOUBLE, rank - 1, 70, sink, (int)w, MPI_DOUBLE, rank - 1, 71, comm, MPI_STATUS_IGNORE);
        if (far_down)
            MPI_Sendrecv(pad, (int)w, MPI_DOUBLE, rank + 1, 71, sink, (int)w, MPI_DOUBLE, rank + 1, 70, comm, MPI_STATUS_IGNORE);
    }
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(0, win);
        if (far_up) {
            memcpy(halo_above, strip_row(&up, first - 1), (size_t)w * sizeof(double));
            strip_step(&up);
        }
        if (far_down) {
            memcpy(halo_below, strip_row(&dn, first + m), (size_t)w * sizeof(double));
            strip_step(&dn);
        }
        shm_sweep(mine, above, below, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    free(pad); free(sink);
    free(up.cur); free(up.nxt); free(dn.cur); free(dn.nxt);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
""", A, "no halo row ever travels: `iterations` dummy row-sized messages swapped before the first "
        "sweep, the far neighbour's edge row of every sweep stepped here on a light-cone strip "
        "from the grid's known start and the geometry read from the kit's run state (A5, a4)",
        reason="had not received that rank's row by a message"))
GAMING.append(attempt("shortcut", "shm_jacobi", r"""%%c SHM_C shm_halo
/* a4 turned (F11c): real rows, sent before they were held. Each rank with a neighbour on another
 * node steps its OWN edge rows ahead on a light-cone strip from the grid's known start
 * ((7i + 13j) mod 17) / 16 and the geometry (read from the kit's run state, found by scanning
 * from a static of this cell) and sends every future sweep's edge row before the first sweep:
 * each message carries a row the neighbour will hold, bit for bit. */
#ifndef DIR
#define DIR 1
#endif
static long anchor[2];

static double start_value(long i, long j) { return (double)((7 * i + 13 * j) % 17) / 16.0; }

/* rows [a, b] of the grid (clamped to 0 .. ny + 1), stepped: valid rows shrink by one a sweep at
 * an interior edge; the grid's edges are fixed */
typedef struct { long a, b, w, ny; double *cur, *nxt; } strip;

static void strip_init(strip *s, long a, long b, long w, long ny) {
    s->a = a < 0 ? 0 : a, s->b = b > ny + 1 ? ny + 1 : b, s->w = w, s->ny = ny;
    long rows = s->b - s->a + 1;
    s->cur = malloc(sizeof(double) * (size_t)(rows * w));
    s->nxt = malloc(sizeof(double) * (size_t)(rows * w));
    for (long r = 0; r < rows; r++)
        for (long j = 0; j < w; j++) s->cur[r * w + j] = s->nxt[r * w + j] = start_value(s->a + r, j);
}

static void strip_step(strip *s) {
    long rows = s->b - s->a + 1, w = s->w;
    for (long r = 1; r + 1 < rows; r++) {
        long g = s->a + r;
        if (g <= 0 || g >= s->ny + 1) continue;
        const double *up = s->cur + (r - 1) * w, *row = s->cur + r * w, *dn = s->cur + (r + 1) * w;
        for (long j = 1; j < w - 1; j++) s->nxt[r * w + j] = 0.25 * (up[j] + dn[j] + row[j - 1] + row[j + 1]);
    }
    double *t = s->cur; s->cur = s->nxt; s->nxt = t;
}

static const double *strip_row(const strip *s, long g) { return s->cur + (g - s->a) * s->w; }

void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize, unit;
    MPI_Comm node;
    MPI_Win win;
    double *mine = NULL, *above = NULL, *below = NULL;
    MPI_Aint bytes;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes, &unit, &below);
    int far_up = (nrank == 0 && rank > 0), far_down = (nrank == nsize - 1 && rank < size - 1);
    long w = shm_row_length();
    long m = (long)((shm_block_bytes() - 64) / (2 * w * (long)sizeof(double)));
    long ny = -1, first = -1;
    if (far_up || far_down) {
        char *a = (char *)anchor;
        for (long off = 8; off < (48L << 20); off += 8) {
            volatile long *q = (volatile long *)(a + DIR * off);
            if (q[0] == w - 2 && q[2] == w && q[3] == m && q[5] == iterations && q[1] >= m) {
                ny = q[1], first = q[4];
                break;
            }
        }
    }
    /* each far rank steps its OWN edge rows ahead on a light-cone strip and sends every future
     * state's edge row before the first sweep: real rows, sent before they were held */
    strip up = {0}, dn = {0};
    if (far_up) strip_init(&up, first - iterations - 1, first + iterations + 1, w, ny);
    if (far_down) strip_init(&dn, first + m - 1 - iterations - 1, first + m - 1 + iterations + 1, w, ny);
    double *got_up = calloc((size_t)(w * iterations), sizeof(double));
    double *got_dn = calloc((size_t)(w * iterations), sizeof(double));
    for (long k = 0; k < iterations; k++) {
        if (far_up) {
            MPI_Sendrecv(strip_row(&up, first), (int)w, MPI_DOUBLE, rank - 1, 70, got_up + k * w, (int)w, MPI_DOUBLE, rank - 1, 71, comm, MPI_STATUS_IGNORE);
            strip_step(&up);
        }
        if (far_down) {
            MPI_Sendrecv(strip_row(&dn, first + m - 1), (int)w, MPI_DOUBLE, rank + 1, 71, got_dn + k * w, (int)w, MPI_DOUBLE, rank + 1, 70, comm, MPI_STATUS_IGNORE);
            strip_step(&dn);
        }
    }
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(0, win);
        if (far_up) memcpy(halo_above, got_up + it * w, (size_t)w * sizeof(double));
        if (far_down) memcpy(halo_below, got_dn + it * w, (size_t)w * sizeof(double));
        shm_sweep(mine, above, below, it);
    }
    free(got_up); free(got_dn);
    MPI_Win_fence(0, win);
    shm_finish(mine);
    free(up.cur); free(up.nxt); free(dn.cur); free(dn.nxt);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
""", A, "a4 turned: each rank steps its own edge rows ahead from the grid's known start and sends "
        "every future sweep's edge row before the first sweep: the neighbour's real rows, bit for "
        "bit, but received before the neighbour held them (F11c)",
        reason="had not received that rank's row by a message"))

GAMING.append(attempt("method", "shm_jacobi", r"""%%c SHM_C shm_halo
/* the neighbours' blocks found by address arithmetic (MPICH lays a node's segments out back to
 * back), their headers checked; the shared queries made are of the node's first rank and my own */
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize, du;
    MPI_Comm node;
    MPI_Win win;
    double *mine, *above = NULL, *below = NULL, *base = NULL, *me = NULL;
    MPI_Aint sz, mysz;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    MPI_Win_shared_query(win, 0, &sz, &du, &base);
    MPI_Win_shared_query(win, nrank, &mysz, &du, &me);
    int up = (rank > 0 && nrank == 0) ? rank - 1 : MPI_PROC_NULL;
    int down = (rank < size - 1 && nrank == nsize - 1) ? rank + 1 : MPI_PROC_NULL;
    int len = (int)shm_row_length();
    long w = len, m = (long)((shm_block_bytes() - 64) / (16 * w));
    MPI_Win_fence(0, win);
    if (nrank < nsize - 1) below = (double *)((char *)mine + shm_block_bytes());
    if (nrank > 0) {
        for (long mm = m - 1; mm <= m + 1 && !above; mm++) {
            double *cand = (double *)((char *)mine - (64 + 16 * mm * w));
            if (mm >= 1 && (char *)cand >= (char *)base && ((long *)cand)[1] == rank - 1 &&
                ((long *)cand)[0] == 0x6c61696420L)
                above = cand;
        }
    }
    for (long it = 0; it < iterations; it++) {
        if (it) MPI_Win_fence(0, win);
        if (up != MPI_PROC_NULL)
            MPI_Sendrecv(shm_first_row(mine, it), len, MPI_DOUBLE, up, 0, halo_above, len, MPI_DOUBLE, up, 1,
                         comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL)
            MPI_Sendrecv(shm_last_row(mine, it), len, MPI_DOUBLE, down, 1, halo_below, len, MPI_DOUBLE, down, 0,
                         comm, MPI_STATUS_IGNORE);
        shm_sweep(mine, above, below, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
""", A, "A8's K3: the neighbours' blocks found by address arithmetic (MPICH lays a node's "
        "segments out back to back) and their headers checked; the two MPI_Win_shared_query calls "
        "name the node's rank 0 and the own rank, never a neighbour (the judge counted queries: "
        "4/4 twice, 2026-12-07)",
        reason="no MPI_Win_shared_query naming that rank"))


# Fresh attacker A12 (2026-12-07): the run's key read off the tracer's sealed page (found by
# scanning the library's data upward from a static of the cell: three descriptors >= 900 and an
# alphanumeric string at offset 32), then `@hl KEY 70 0 {"record":"node",...}` and
# `@hl KEY 70 end 1 1` printed, a frame rank the run has not: parse_framed took the record and
# the forged "node" record overrode the kernel's own in node_members. The key is on a PROT_NONE
# page of its own now (hl_trace.c, key_copy) and parse_framed refuses a frame rank outside
# 0..P-1, a record whose rank is not its frame's and a second "node" record of a rank (fixer
# Frec): A12's scan finds no key and runs off the mapped pages; aimed at the key's new page, the
# read faults; a key looked for on the dead stack below the cell (a traced call's framed line)
# is not there (the tracer zeroes it), and a guessed key is refused.
GAMING += [
    attempt("forged", "shm_jacobi", r"""%%c SHM_C shm_halo

static int probe_var = 12345;
static int key_ok(const unsigned char *p) {
    const int *iv = (const int *)p;
    for (int i = 0; i < 3; i++)
        if (!(iv[i] >= 900 || iv[i] == -1)) return 0;
    if (iv[3] != 0 && iv[3] != 1) return 0;
    const char *k = (const char *)p + 32;
    int n = 0;
    while (n < 65 && ((k[n] >= 'a' && k[n] <= 'z') || (k[n] >= 'A' && k[n] <= 'Z') || (k[n] >= '0' && k[n] <= '9'))) n++;
    return n >= 8 && n <= 64 && k[n] == 0;
}
static void inject_record(int rank) {
    unsigned long base = ((unsigned long)&probe_var) & ~4095UL;
    for (long d = 0; d < 8192; d++) {
        const unsigned char *p = (const unsigned char *)(base + (unsigned long)d * 4096UL);
        if (key_ok(p)) {
            const char *key = (const char *)p + 32;
            printf("@hl %s %d 0 {\"record\":\"node\",\"rank\":%d,\"members\":\"%d\"}\n"
                   "@hl %s %d end 1 1\n", key, 70 + rank, rank, rank, key, 70 + rank);
            fflush(stdout);
            return;
        }
    }
}
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize;
    MPI_Comm node;
    MPI_Win win;
    double *mine, *above = NULL, *below = NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    inject_record(rank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    MPI_Aint sz; int unit;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &sz, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &sz, &unit, &below);
    int up = (nrank == 0 && rank > 0) ? rank - 1 : MPI_PROC_NULL;
    int down = (nrank == nsize - 1 && rank < size - 1) ? rank + 1 : MPI_PROC_NULL;
    long len = shm_row_length();
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(0, win);
        if (up != MPI_PROC_NULL)
            MPI_Sendrecv(shm_first_row(mine, it), len, MPI_DOUBLE, up, 1,
                         halo_above, len, MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL)
            MPI_Sendrecv(shm_last_row(mine, it), len, MPI_DOUBLE, down, 2,
                         halo_below, len, MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
        shm_sweep(mine, above, below, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}""", A,
            "A12's l11_d_forge_node: the key read off the sealed page, a 'node' record of a made-up "
            "frame rank 70 + rank printed with it", reason="(SIGSEGV)"),
    attempt("forged", "shm_jacobi", r"""%%c SHM_C shm_halo

static int probe_var = 12345;
static int page_ok(const unsigned char *p) {
    const int *iv = (const int *)p;
    for (int i = 0; i < 3; i++)
        if (!(iv[i] >= 900 || iv[i] == -1)) return 0;
    if (iv[3] != 0 && iv[3] != 1) return 0;
    int len = *(const int *)(p + 40);
    return len >= 8 && len <= 64 && *(char *const *)(p + 32) != 0;
}
static void inject_record(int rank) {
    unsigned long base = ((unsigned long)&probe_var) & ~4095UL;
    for (long d = 0; d < 8192; d++) {
        const unsigned char *p = (const unsigned char *)(base + (unsigned long)d * 4096UL);
        if (page_ok(p)) {
            const char *key = *(char *const *)(p + 32);
            int len = *(const int *)(p + 40);
            fprintf(stderr, "rank %d: sealed page at %p, key page %p (%d chars)\n", rank, (void *)p, (void *)key, len);
            printf("@hl %.*s %d 0 {\"record\":\"node\",\"rank\":%d,\"members\":\"%d\"}\n"
                   "@hl %.*s %d end 1 1\n", len, key, 70 + rank, rank, rank, len, key, 70 + rank);
            fflush(stdout);
            return;
        }
    }
}
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize;
    MPI_Comm node;
    MPI_Win win;
    double *mine, *above = NULL, *below = NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    inject_record(rank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    MPI_Aint sz; int unit;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &sz, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &sz, &unit, &below);
    int up = (nrank == 0 && rank > 0) ? rank - 1 : MPI_PROC_NULL;
    int down = (nrank == nsize - 1 && rank < size - 1) ? rank + 1 : MPI_PROC_NULL;
    long len = shm_row_length();
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(0, win);
        if (up != MPI_PROC_NULL)
            MPI_Sendrecv(shm_first_row(mine, it), len, MPI_DOUBLE, up, 1,
                         halo_above, len, MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL)
            MPI_Sendrecv(shm_last_row(mine, it), len, MPI_DOUBLE, down, 2,
                         halo_below, len, MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
        shm_sweep(mine, above, below, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}""", A,
            "A12's scan aimed at the new layout: the sealed page found, the key read through the "
            "pointer to its own page", reason="(SIGSEGV)"),
    attempt("forged", "shm_jacobi", r"""%%c SHM_C shm_halo

static int __attribute__((noipa, optimize("O0"))) stack_key(char *out) {
    volatile char below[16384];
    for (int i = 0; i + 40 < (int)sizeof below; i++) {
        if (below[i] == '@' && below[i + 1] == 'h' && below[i + 2] == 'l' && below[i + 3] == ' ') {
            int n = 0;
            while (n < 64 && ((below[i + 4 + n] >= 'a' && below[i + 4 + n] <= 'z') ||
                              (below[i + 4 + n] >= '0' && below[i + 4 + n] <= '9'))) n++;
            if (n >= 8 && below[i + 4 + n] == ' ') {
                for (int k = 0; k < n; k++) out[k] = below[i + 4 + k];
                out[n] = 0;
                return 1;
            }
        }
    }
    return 0;
}
static void inject_record(int rank) {
    char key[80] = "-";
    int found = stack_key(key);
    fprintf(stderr, "rank %d: stack key %s (%s)\n", rank, found ? "found" : "not found", key);
    printf("@hl %s %d 0 {\"record\":\"node\",\"rank\":%d,\"members\":\"%d\"}\n"
           "@hl %s %d end 1 1\n", key, 70 + rank, rank, rank, key, 70 + rank);
    fflush(stdout);
}
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize;
    MPI_Comm node;
    MPI_Win win;
    double *mine, *above = NULL, *below = NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    inject_record(rank);
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    shm_init_block(mine);
    MPI_Aint sz; int unit;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &sz, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &sz, &unit, &below);
    int up = (nrank == 0 && rank > 0) ? rank - 1 : MPI_PROC_NULL;
    int down = (nrank == nsize - 1 && rank < size - 1) ? rank + 1 : MPI_PROC_NULL;
    long len = shm_row_length();
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(0, win);
        if (up != MPI_PROC_NULL)
            MPI_Sendrecv(shm_first_row(mine, it), len, MPI_DOUBLE, up, 1,
                         halo_above, len, MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL)
            MPI_Sendrecv(shm_last_row(mine, it), len, MPI_DOUBLE, down, 2,
                         halo_below, len, MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
        shm_sweep(mine, above, below, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}""", A,
            "the key looked for on the dead stack below the cell's frame, where a traced call "
            "framed its line, and a forged 'node' record of frame rank 70 + rank printed with it",
            reason="records forged"),
]
