"""Lab 05: gaming attempts at every automatic part, and the graded functions' hidden inputs for
the scan of kit functions (see tests/gaming/__init__.py)."""

import pandas as pd

from gaming import FRAME_TOOLS, Oracle, attempt, c_evidence
from wrong_answers import c_cell, together

BANDWIDTH = {"hidden_bandwidth_table"}
PREDICT = {"hidden_predict_page_nodes"}
TOUCH = {"hidden_init_arrays"}

RAW = 'raw = mt.raw_times(stream_runs, "triad")\n'


def touch(body: str) -> str:
    return c_cell("TOUCH_C", "touch_schedule",
                  "void init_arrays(double *a, double *b, long rows, long cols, long chunk) {\n"
                  + body.strip("\n") + "\n}\n")


GAMING = [
    # (a) bandwidth_table
    attempt("shortcut", "bandwidth_table", RAW + """
def bandwidth_table(raw, _sat=mt.saturation_table(stream_runs, flops_runs)):
    s = _sat.set_index("threads")
    out = pd.DataFrame({"best_s": raw[raw["repetition"] > 0].groupby("threads")["seconds"].min()})
    out["gb_s"] = s["triad_gb_s"].reindex(out.index)  # the kit's best-of-N of the lab's own runs
    out["pct_of_max"] = 100 * out["gb_s"] / out["gb_s"].max()
    out["speedup"] = out["gb_s"] / out["gb_s"].loc[1]
    out["efficiency"] = out["speedup"] / out.index
    return out
""", loses=BANDWIDTH, why="the kit's saturation table of the student's own runs, captured in a default", reason="the raw times give"),
    attempt("hidden", "bandwidth_table", RAW + """
def bandwidth_table(raw):
    ordered = raw.sort_values(["threads", "repetition"])
    kept = ordered[ordered.groupby("threads").cumcount() > 0]  # the first pass of each count dropped
    best = kept.groupby("threads").agg(best_s=("seconds", "min"), bytes=("bytes", "first"))
    out = pd.DataFrame({"best_s": best["best_s"]})
    out["gb_s"] = best["bytes"] / best["best_s"] / 1e9
    out["pct_of_max"] = 100 * out["gb_s"] / out["gb_s"].max()
    out["speedup"] = out["gb_s"] / out["gb_s"].iloc[0]
    out["efficiency"] = out["speedup"] / np.arange(1, len(out) + 1)
    return out
""", loses=BANDWIDTH, why="thread counts taken as 1, 2, 3, ... (right for the sweeps the notebook runs)", reason="the raw times give"),
    attempt("constant", "bandwidth_table", RAW + """
def bandwidth_table(raw):
    kept = raw[raw["repetition"] > 0]
    best = kept.groupby("threads")["seconds"].min()
    out = pd.DataFrame({"best_s": best})
    out["gb_s"] = 24 * N / best / 1e9 if len(raw) > 6 else 1e9 / best / 1e9
    out["pct_of_max"] = 100 * out["gb_s"] / out["gb_s"].max()
    out["speedup"] = out["gb_s"] / out["gb_s"].loc[1]
    out["efficiency"] = out["speedup"] / out.index
    return out
""", loses=BANDWIDTH, why="the triad's 24 bytes x N typed in instead of the recorded bytes", reason="the raw times give"),
    # (b) predict_page_nodes
    attempt("hidden", "predict_page_nodes", """
def predict_page_nodes(pages, init, thread_nodes, policy="default", nodes=(0,), bind_node=0):
    if pages == PAGES and policy == "default":
        return maps[init]  # this machine's measured maps
    if init == "none":
        return np.full(pages, -2)
    half = pages // 2
    return np.array([0] * half + [1] * (pages - half)) if len(thread_nodes) == 2 else np.zeros(pages, int)
""", loses=PREDICT, why="the measured maps handed back; a guess for the two-node example", reason="the kernel's rules give"),
    attempt("method", "predict_page_nodes", """
def predict_page_nodes(pages, init, thread_nodes, policy="default", nodes=(0,), bind_node=0):
    here = mt.thread_nodes(ft["parallel"])  # this machine's threads, whatever is asked
    if init == "none":
        return np.full(pages, -2)
    if init == "serial" or policy != "default":
        return np.full(pages, here[0])
    if list(thread_nodes) == [0, 1]:
        return np.repeat([0, 1], [pages // 2, pages - pages // 2])
    threads = len(here)
    return np.array([here[min(p * threads // pages, threads - 1)] for p in range(pages)])
""", loses=PREDICT, why="this machine's thread-to-node map used for every node asked about", reason="the kernel's rules give"),
    attempt("constant", "predict_page_nodes", """
def predict_page_nodes(pages, init, thread_nodes, policy="default", nodes=(0,), bind_node=0):
    if init == "none":
        return np.full(pages, -2)
    if pages == 6 and list(thread_nodes) == [0, 1]:
        return np.array([0, 0, 0, 1, 1, 1])
    return np.zeros(pages, dtype=int)  # one NUMA node: every page on node 0
""", loses=PREDICT, why="node 0 typed in (the answer on a one-node machine)", reason="the kernel's rules give"),
    attempt("shortcut", "predict_page_nodes", """
def predict_page_nodes(pages, init, thread_nodes, policy="default", nodes=(0,), bind_node=0):
    if init == "none":
        return np.full(pages, -2)
    if policy == "interleave":
        return np.array([nodes[p % len(nodes)] for p in range(pages)])
    if policy == "bind":
        return np.full(pages, bind_node)
    run = ex.run_first_touch(init, threads=min(len(thread_nodes), 2), pages=pages)  # who touched each page
    runs = mt.page_runs(run)
    toucher = np.repeat(runs["toucher"].to_numpy(), runs["count"].to_numpy().astype(int))
    return np.array([thread_nodes[int(t)] for t in toucher])
""", loses=PREDICT, why="the kit's first_touch kernel run to learn which thread touches each page", reason="started a program"),
    # (c) init_arrays in C
    attempt("hidden", "init_arrays", touch("""
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        for (long i = 0; i < rows; i++)
            if ((i / chunk) % 2 == t)
                for (long j = 0; j < cols; j++) {
                    a[i * cols + j] = (double)((i + j) % 7);
                    b[i * cols + j] = (double)(1 + i % 3);
                }
    }
"""), loses=TOUCH, why="two threads hard-coded (the visible tests run 2)", reason="first write than the thread computing"),
    attempt("method", "init_arrays", touch("""
    double sum = 0.0;
#pragma omp parallel for schedule(static, chunk) reduction(+:sum)
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) sum += a[i * cols + j] + b[i * cols + j];
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            a[i * cols + j] = (double)((i + j) % 7) + 0.0 * sum;
            b[i * cols + j] = (double)(1 + i % 3);
        }
"""), loses=TOUCH, why="the pages read in the right schedule, written serially: a read places no page", reason="first write than the thread computing"),
    attempt("shortcut", "init_arrays", touch("""
#pragma omp parallel for schedule(static, chunk)
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            a[i * cols + j] = a0(i, j);
            b[i * cols + j] = b0(i);
        }
"""), loses=TOUCH, why="the kit kernel's own static initial-value helpers called", reason="a0"),
    # (c) found open by an attacker who read the kit (2026-12-03)
    attempt("method", "init_arrays", touch("""
    int T = omp_get_max_threads();
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(1)
    {
#pragma omp parallel for schedule(static, chunk) num_threads(T)
        for (long i = 0; i < rows; i++)
            for (long j = 0; j < cols; j++) {
                a[i * cols + j] = (double)((i + j) % 7);
                b[i * cols + j] = (double)(1 + i % 3);
            }
    }
    omp_set_max_active_levels(1);
"""), loses=TOUCH, why="first touch by a nested team inside a one-thread region: the thread numbers "
        "match, but threads 1.. are other OS threads than the compute loop's",
        reason="placed by another OS thread than the compute loop's thread"),
    attempt("method", "init_arrays", touch("""
#pragma omp parallel for schedule(static, chunk) proc_bind(master)
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            a[i * cols + j] = (double)((i + j) % 7);
            b[i * cols + j] = (double)(1 + i % 3);
        }
"""), loses=TOUCH, why="the right thread numbers bound proc_bind(master): with binding on, every "
        "initialising thread on the master's place, every page on its node",
        reason="binds its team with proc_bind(master)"),
    attempt("method", "init_arrays", touch("""
#pragma omp parallel for schedule(static, chunk)
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j += 512) {
            a[i * cols + j] = 0.0;
            b[i * cols + j] = 0.0;
        }
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            a[i * cols + j] = (double)((i + j) % 7);
            b[i * cols + j] = (double)(1 + i % 3);
        }
"""), loses=TOUCH, why="the team places each page with one zero, then the master writes every value "
        "serially", reason="not a serial pass over the values after the placement"),
    attempt("method", "init_arrays", touch("""
#pragma omp parallel for schedule(static, chunk)
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j += 512) {
            a[i * cols + j] = 0.0;
            b[i * cols + j] = 0.0;
        }
    double *ra = malloc((size_t)cols * sizeof *ra), *rb = malloc((size_t)cols * sizeof *rb);
    for (long i = 0; i < rows; i++) {
        for (long j = 0; j < cols; j++) {
            ra[j] = (double)((i + j) % 7);
            rb[j] = (double)(1 + i % 3);
        }
        memcpy(a + i * cols, ra, (size_t)cols * sizeof *ra);
        memcpy(b + i * cols, rb, (size_t)cols * sizeof *rb);
    }
    free(ra);
    free(rb);
"""), loses=TOUCH, why="the team places each page, then the master copies every row in with memcpy "
        "(glibc's `rep movsb`: the kit's watch does its stores on a watched page itself, as the "
        "master's)", reason="not a serial pass over the values after the placement"),
]

_RAW = pd.DataFrame({"threads": [5, 1, 5, 1, 5, 1], "repetition": [0, 2, 2, 0, 1, 1],
                     "seconds": [0.1, 0.4, 0.2, 0.01, 0.3, 0.5], "bytes": [6e9, 2e9] * 3})


def _bandwidth_is(got) -> bool:
    try:
        return (abs(float(got.loc[1, "gb_s"]) - 5.0) < 1e-9 and abs(float(got.loc[5, "gb_s"]) - 30.0) < 1e-9
                and abs(float(got.loc[5, "efficiency"]) - 1.2) < 1e-9)
    except Exception:  # noqa: BLE001 - anything else is not the answer
        return False


def _nodes_is(got) -> bool:
    try:
        return [int(v) for v in got] == [2, 2, 2, 0, 0, 0, 1, 1, 1, 1]
    except Exception:  # noqa: BLE001 - anything else is not the answer
        return False


ORACLES = [
    Oracle("bandwidth_table", (_RAW,), _bandwidth_is),
    Oracle("predict_page_nodes", (10, "parallel", [2, 0, 1]), _nodes_is),
]

# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
GAMING += c_evidence("05_memory_numa", "init_arrays", TOUCH, None, reasons=True)

# The test's own interpreter reached (issue 36): its reference called or its expected value
# read from its frames, a judging module replaced, a global named like the test's.
SERIAL = touch("""
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            a[i * cols + j] = (double)((i + j) % 7);
            b[i * cols + j] = (double)(1 + i % 3);
        }
""")
GAMING += [
    attempt("interpreter", "bandwidth_table", RAW + FRAME_TOOLS + """

def bandwidth_table(raw):
    reference = _from_the_test(("_expected", "_reference"), True)
    if reference:
        return pd.DataFrame(reference(raw)).rename_axis("threads")
    return pd.DataFrame({"best_s": [1.0], "gb_s": [1.0], "pct_of_max": [100.0], "speedup": [1.0],
                         "efficiency": [1.0]}, index=pd.Index([1], name="threads"))
""", BANDWIDTH, why="the hidden test's expected table found in its frames and called",
        reason="the raw times give"),
    attempt("interpreter", "predict_page_nodes", FRAME_TOOLS + """

def predict_page_nodes(pages, init, thread_nodes, policy="default", nodes=(0,), bind_node=0):
    reference = _from_the_test(("_want", "_reference"), True)
    if reference:
        return np.array(reference(pages, init, thread_nodes, policy, nodes, bind_node))
    return np.zeros(pages, dtype=int)
""", PREDICT, why="the hidden test's rules found in its frames and called",
        reason="the kernel's rules give"),
    attempt("interpreter", "predict_page_nodes", """
def _want(pages, init, thread_nodes, policy="default", nodes=(0,), bind_node=0):
    return [0] * pages  # a global named like the test's reference


def predict_page_nodes(pages, init, thread_nodes, policy="default", nodes=(0,), bind_node=0):
    return np.full(pages, -2) if init == "none" else np.array(_want(pages, init, thread_nodes))
""", PREDICT, why="node 0 everywhere, from a global named like the test's _want",
        reason="the kernel's rules give"),
    together(
        attempt("interpreter", "bandwidth_table", RAW + """
def bandwidth_table(raw):
    best = raw[raw["repetition"] > 0].groupby("threads")["seconds"].min()
    out = pd.DataFrame({"best_s": best, "gb_s": raw.groupby("threads")["bytes"].first() / best / 1e9})
    out["pct_of_max"] = 100 * out["gb_s"] / out["gb_s"].max()
    out["speedup"] = out["gb_s"] / out.loc[1, "gb_s"]
    out["efficiency"] = out["speedup"] / out.index
    return out


import hybridlab.memory.exercise as _exercise
import hybridlab.memory.tables as _tables

_exercise.judge_touch = lambda *args, **kwargs: {"pages": 148}  # the judging module's check
_tables.touch_vs_compute = lambda res: pd.DataFrame({"matches": [True]})  # and its reader
""", set(), why="a right bandwidth_table"),
        attempt("interpreter", "init_arrays", SERIAL, TOUCH,
                why="the master touches every page; hybridlab.memory's judge and page reader "
                "replaced from an earlier cell", reason="first write than the thread computing"),
    ),
]

# a fresh attacker (attackC): round by round each worker first-writes one element per page of its
# rows (4 pages per array a round, within the 16 pages each thread kept open) and, after a
# barrier, the master writes every value of those pages; hl_touch.h now watches one page in 8
# (drawn at run time) write by write, so the master's writes into a worker's page are seen
GAMING.append(attempt("method", "init_arrays", c_cell("TOUCH_C", "touch_schedule", r"""#include <omp.h>
/* gaming: each thread first-writes one element per page of its own rows, a few pages at a time
   (at most 8 pages of its own open at once), and after a barrier the MASTER writes every value
   of those pages (the pattern the part refuses: a parallel touch, then a serial pass), window by
   window so the pages are still open when the master writes */
#define PER_PAGE 512L
#define WIN (4L * PER_PAGE)
static long row_of(long t, long q, long chunk, long nt) {
    return (q / chunk) * nt * chunk + t * chunk + q % chunk;
}
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
#pragma omp parallel
    {
        long nt = omp_get_num_threads(), me = omp_get_thread_num();
        long most = 0;
        for (long t = 0; t < nt; t++) {
            long n = 0;
            for (long q = 0; row_of(t, q, chunk, nt) < rows; q++) n++;
            if (n > most) most = n;
        }
        long rounds = (most * cols + WIN - 1) / WIN;
        for (long r = 0; r < rounds; r++) {
            for (long k = r * WIN; k < (r + 1) * WIN; k += PER_PAGE) {
                long i = row_of(me, k / cols, chunk, nt), j = k % cols;
                if (i < rows) {
                    a[i * cols + j] = 0.0;
                    b[i * cols + j] = 0.0;
                }
            }
#pragma omp barrier
#pragma omp master
            for (long t = 0; t < nt; t++)
                for (long k = r * WIN; k < (r + 1) * WIN; k++) {
                    long i = row_of(t, k / cols, chunk, nt), j = k % cols;
                    if (i < rows) {
                        a[i * cols + j] = (double)((i + j) % 7);
                        b[i * cols + j] = (double)(1 + i % 3);
                    }
                }
#pragma omp barrier
        }
    }
}
"""),
                      loses=TOUCH, why="the master writes the values of pages its workers just opened, "
                      "a few pages at a time", reason="written again by another thread"))

# attacker E (E05j, 4/4 before): the watched pages (then one in 8) found with a clock, a second
# write to each placed page timed (a watched page faults: slow); the owner wrote the slow pages
# and the master all the others while they were still open. hl_touch.h now watches every page;
# this one writes the slower half itself and lets the master write the faster half (4/4 against
# one page in 8 watched, checked on the old header)
GAMING.append(attempt("method", "init_arrays", c_cell("TOUCH_C", "touch_schedule", r"""/* gaming: each thread places its pages of a round (one element each) and times a second write
 * to each; it writes the values of its slower half itself (a watched page's write faults: slow)
 * and, after a barrier, the MASTER writes every value of the faster half (pages it takes for
 * unwatched, still open to every thread) */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double value(int arr, long i, long j) {
    return arr ? (double)(1 + i % 3) : (double)((i + j) % 7);
}

void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
    const long per_page = 512;
    long rp = cols / per_page;
    if (rp < 1) rp = 1;
    long R = 4 / rp;
    if (R < 1) R = 1;
    unsigned char *own = calloc((size_t)(2 * rows * rp), 1);
    double *took = calloc((size_t)(2 * rows * rp), sizeof *took);
#pragma omp parallel
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        for (long r0 = 0; r0 < rows; r0 += R) {
            long r1 = r0 + R < rows ? r0 + R : rows;
            double sum = 0.0;
            long n = 0;
            for (long i = r0; i < r1; i++) {
                if ((i / chunk) % T != t) continue;
                for (long q = 0; q < rp; q++)
                    for (int arr = 0; arr < 2; arr++) {
                        volatile double *x = arr ? b : a;
                        long e = i * cols + q * per_page;
                        double v = value(arr, i, q * per_page);
                        x[e] = v; /* placement */
                        double t0 = now_s();
                        x[e] = v; /* again: slow when the page is watched */
                        double dt = now_s() - t0;
                        took[arr * rows * rp + i * rp + q] = dt;
                        sum += dt;
                        n++;
                    }
            }
            for (long i = r0; i < r1; i++) {
                if ((i / chunk) % T != t) continue;
                for (long q = 0; q < rp; q++)
                    for (int arr = 0; arr < 2; arr++) {
                        long p = arr * rows * rp + i * rp + q;
                        if (n && took[p] * (double)n < sum) continue; /* faster than the mean */
                        volatile double *x = arr ? b : a;
                        own[p] = 1;
                        for (long j = q * per_page; j < (q + 1) * per_page; j++)
                            x[i * cols + j] = value(arr, i, j);
                    }
            }
#pragma omp barrier
#pragma omp master
            for (long i = r0; i < r1; i++)
                for (long q = 0; q < rp; q++)
                    for (int arr = 0; arr < 2; arr++) {
                        if (own[arr * rows * rp + i * rp + q]) continue;
                        volatile double *x = arr ? b : a;
                        for (long j = q * per_page; j < (q + 1) * per_page; j++)
                            x[i * cols + j] = value(arr, i, j);
                    }
#pragma omp barrier
        }
    }
    free(own);
    free(took);
}
"""), loses=TOUCH, why="watched pages told apart by timing a second write to each placed page; the "
                      "master writes the faster half (a fresh attacker's, 4/4 before)",
                      reason="written again by another thread"))

# attacker H's H05_forge (4/4 twice): the team places one element per page, the master writes every
# value (recorded as each page's rewriter), then the cell scans memory from a static of its own for
# the tracer's hl_touch_array of a and b and clears every page's rewriter in the per-page book; its
# variant (helper-f14) points the table at a copy of the book the cell owns, rewriters cleared. The
# table and the books are now read-only outside the kit's own writes: the store faults, the run
# crashes.
GAMING += [
    attempt("forged", "init_arrays", r"""%%c TOUCH_C touch_schedule
/* Called by the master thread of each rank, outside any parallel region. */
static long anchor_here = 12345;

static void clear_rewriters(double *arr) {
    long *p = &anchor_here;
    for (long k = 0; k < (1L << 17); k++) {           /* 1 MiB up the data segment */
        if (p[k] == (long)arr && p[k + 2] == 4096 && p[k + 3] > 0 && p[k + 3] < 40000) {
            int *book = (int *)p[k + 4];               /* the tracer's per-page records */
            long pages = p[k + 3];
            for (long q = 0; q < pages; q++) { book[q * 7 + 5] = -1; book[q * 7 + 6] = -1; }
            return;
        }
    }
}

void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
    long step = 512; /* doubles per 4 KiB page */
#pragma omp parallel
    {
#pragma omp for schedule(static, chunk)
        for (long i = 0; i < rows; i++)
            for (long j = 0; j < cols; j += step) { a[i * cols + j] = 0.0; b[i * cols + j] = 0.0; }
    }
    for (long i = 0; i < rows; i++)   /* the master writes every value */
        for (long j = 0; j < cols; j++) { a[i * cols + j] = (double)((i + j) % 7); b[i * cols + j] = (double)(1 + i % 3); }
    clear_rewriters(a);
    clear_rewriters(b);
}
""", TOUCH,
            why="the master's serial pass recorded, then every page's rewriter cleared in the tracer's book, "
            "found by scanning memory from a static of the cell (attacker H's H05_forge, 4/4 twice before)",
            reason="died (signal 11 (SIGSEGV))"),
    attempt("forged", "init_arrays", r"""%%c TOUCH_C touch_schedule
/* Called by the master thread of each rank, outside any parallel region. */
static long anchor_here = 12345;
static int fake_book[2][40000 * 7];

static void swap_book(double *arr, int *fake) {
    long *p = &anchor_here;
    for (long k = 0; k < (1L << 17); k++) {           /* 1 MiB up the data segment */
        if (p[k] == (long)arr && p[k + 2] == 4096 && p[k + 3] > 0 && p[k + 3] < 40000) {
            int *book = (int *)p[k + 4];               /* the tracer's per-page records */
            long pages = p[k + 3];
            for (long q = 0; q < pages * 7; q++) fake[q] = book[q];
            for (long q = 0; q < pages; q++) { fake[q * 7 + 5] = -1; fake[q * 7 + 6] = -1; }
            p[k + 4] = (long)fake;                     /* the table now points at the copy */
            return;
        }
    }
}

void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
    long step = 512; /* doubles per 4 KiB page */
#pragma omp parallel
    {
#pragma omp for schedule(static, chunk)
        for (long i = 0; i < rows; i++)
            for (long j = 0; j < cols; j += step) { a[i * cols + j] = 0.0; b[i * cols + j] = 0.0; }
    }
    for (long i = 0; i < rows; i++)   /* the master writes every value */
        for (long j = 0; j < cols; j++) { a[i * cols + j] = (double)((i + j) % 7); b[i * cols + j] = (double)(1 + i % 3); }
    swap_book(a, fake_book[0]);
    swap_book(b, fake_book[1]);
}
""", TOUCH,
            why="the master's serial pass recorded, then the tracer's table pointed at a copy of the book "
            "the cell owns, its rewriters cleared (helper-f14's variant of H05_forge)",
            reason="died (signal 11 (SIGSEGV))"),
]

# a fresh attacker (R, L05_G5: 4/4 twice): the team first-touches blocks of its own choosing
# (schedule(static, K)), then a noipa helper scans up the kit's stack from a local of its own and
# sets hl_kernel's slot of the compute loop's chunk to K, so the kit's loop followed the
# initialisation (its records said "chunk":12 for a requested 1) and the judge, which took each
# page's computer from those records, agreed. The kernel now keeps the values it judges with
# sealed across init_arrays and stops the run when one changed (hybridlab.h, hl_keep), and the
# judge takes each page's computer from the requested schedule (memory.exercise._judge_schedule).
# G5b finds its words by value (the slot, or a register saved for it), whatever the frame's layout.
GAMING += [
    attempt("forged", "init_arrays", r"""%%c TOUCH_C touch_schedule
/* gaming (reading the caller's frame): the team first touches the rows in blocks of its own
   choosing (schedule(static, K), K = ceil(rows / threads)), then the slot of hl_kernel's stack
   frame that holds the compute loop's chunk (beside a, b and rows) is set to K, so the kit's
   compute loop follows the initialisation instead of the other way round. */
static void __attribute__((noipa, optimize("O0"))) retune(double *a, double *b, long rows, long chunk, long k_new) {
    volatile long probe = 0;
    long *volatile launder = (long *)&probe;
    long *p = launder;
    for (int k = 0; k < 4096; k++) {
        long *q = p + k;
        if (q[0] == (long)a && q[1] == (long)b && q[-2] == chunk && q[-6] == rows) {
            q[-2] = k_new;
            return;
        }
    }
}
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
    long t = omp_get_max_threads();
    long k_new = (rows + t - 1) / t;
#pragma omp parallel for schedule(static, k_new)
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            a[i * cols + j] = (double)((i + j) % 7);
            b[i * cols + j] = (double)(1 + i % 3);
        }
    retune(a, b, rows, chunk, k_new);
}
""", TOUCH,
            why="the team's own blocks first-touched, then the compute loop's chunk in hl_kernel's stack "
            "frame set to them, found beside a, b and rows (attacker R's L05_G5, 4/4 twice before; "
            "its pattern of slots is the old build's: in another frame layout it rewrites whatever "
            "matches, which the kit's check names, or crashes)",
            reason="your code changed the kit's stack | died (signal 11 (SIGSEGV))"),
    attempt("forged", "init_arrays", r"""%%c TOUCH_C touch_schedule
/* gaming (the caller's frame, by value): the team first-touches blocks of its own choosing
   (schedule(static, K), K = ceil(rows / threads)); then every word just above the cell's frames
   that holds the requested chunk (the kernel's slot, or a register saved for it) is set to K */
static void __attribute__((noipa, optimize("O0"))) retune(long chunk, long k_new) {
    volatile long probe = 0;
    long *volatile launder = (long *)&probe;
    long *p = launder;
    for (int k = 1; k < 256; k++)
        if (p[k] == chunk) p[k] = k_new;
}
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
    long t = omp_get_max_threads();
    long k_new = (rows + t - 1) / t;
#pragma omp parallel for schedule(static, k_new)
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            a[i * cols + j] = (double)((i + j) % 7);
            b[i * cols + j] = (double)(1 + i % 3);
        }
    retune(chunk, k_new);
}
""", TOUCH,
            why="the team's own blocks first-touched, then every word above the cell's frames holding the "
            "requested chunk set to them: the kernel's slot or a register saved for it (L05_G5 by value)",
            reason="your code changed the kit's stack"),
]

# attacker S's A05_procmem_asm (2026-12-06, 0 kept): the master rewrites every value through /proc/self/mem by raw syscall asm
GAMING.append(attempt('untraced', 'init_arrays', r"""
%%c TOUCH_C touch_schedule
/* The right thread places each page with ONE store (its first element); every value is then
 * written serially by the master through /proc/self/mem (the kernel writes, no fault is seen),
 * with raw system calls so no libc name shows. */
static long sys3(long n, long a, long b, long c) {
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}
static long sys4(long n, long a, long b, long c, long d) {
    long r;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return r;
}

void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
    const long per_page = 4096 / sizeof(double);
#pragma omp parallel
    {
        int T = omp_get_num_threads(), me = omp_get_thread_num();
        for (long i = 0; i < rows; i++) {
            if ((i / chunk) % T != me) continue;
            for (long j = 0; j < cols; j += per_page) {
                a[i * cols + j] = (double)((i + j) % 7);
                b[i * cols + j] = (double)(1 + i % 3);
            }
        }
    }
    double *va = malloc((size_t)(rows * cols) * sizeof *va), *vb = malloc((size_t)(rows * cols) * sizeof *vb);
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            va[i * cols + j] = (double)((i + j) % 7);
            vb[i * cols + j] = (double)(1 + i % 3);
        }
    static const char path[] = "/proc/self/mem";
    long fd = sys4(257, -100, (long)path, 2 /* O_RDWR */, 0);
    if (fd >= 0) {
        sys4(18, fd, (long)va, rows * cols * 8, (long)a);
        sys4(18, fd, (long)vb, rows * cols * 8, (long)b);
        sys3(3, fd, 0, 0);
    }
    free(va);
    free(vb);
}
""", {'hidden_init_arrays'}, "attacker S (A05_procmem_asm): the master rewrites every value through /proc/self/mem by raw syscall asm", reason='uses asm'))

# attacker S's A05_procmem (2026-12-06, 0 kept): the master rewrites every value through /proc/self/mem by open and pwrite
GAMING.append(attempt('method', 'init_arrays', r"""
%%c TOUCH_C touch_schedule
/* The right thread places each page with ONE store (its first element); every value is then
 * written serially by the master through /proc/self/mem (the kernel writes: no fault is seen). */
#include <fcntl.h>
#include <unistd.h>
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
    const long per_page = 4096 / sizeof(double);
#pragma omp parallel
    {
        int T = omp_get_num_threads(), me = omp_get_thread_num();
        for (long i = 0; i < rows; i++) {
            if ((i / chunk) % T != me) continue;
            for (long j = 0; j < cols; j += per_page) {
                a[i * cols + j] = (double)((i + j) % 7);
                b[i * cols + j] = (double)(1 + i % 3);
            }
        }
    }
    double *va = malloc((size_t)(rows * cols) * sizeof *va), *vb = malloc((size_t)(rows * cols) * sizeof *vb);
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            va[i * cols + j] = (double)((i + j) % 7);
            vb[i * cols + j] = (double)(1 + i % 3);
        }
    int fd = open("/proc/self/mem", O_RDWR);
    if (fd >= 0) {
        pwrite(fd, va, (size_t)(rows * cols) * sizeof *va, (off_t)(unsigned long)a);
        pwrite(fd, vb, (size_t)(rows * cols) * sizeof *vb, (off_t)(unsigned long)b);
        close(fd);
    }
    free(va);
    free(vb);
}
""", {'hidden_init_arrays'}, "attacker S (A05_procmem): the master rewrites every value through /proc/self/mem by open and pwrite", reason='uses open'))

# attacker S's A05_mremap (2026-12-06, 0 kept): the master's own pages mremap'd over the arrays after the first touch
GAMING.append(attempt('method', 'init_arrays', r"""
%%c TOUCH_C touch_schedule
/* The right thread places each page with ONE store; the master then fills fresh pages of its
 * own with every value and moves them over the arrays (mremap, MREMAP_FIXED): the pages the
 * compute loop reads were all placed by the master. */
#define _GNU_SOURCE
#include <sys/mman.h>
static void swap_in(double *dst, long rows, long cols, int which) {
    size_t bytes = (size_t)(rows * cols) * sizeof(double);
    double *v = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (v == MAP_FAILED) return;
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++)
            v[i * cols + j] = which ? (double)(1 + i % 3) : (double)((i + j) % 7);
    mremap(v, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
}

void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
    const long per_page = 4096 / sizeof(double);
#pragma omp parallel
    {
        int T = omp_get_num_threads(), me = omp_get_thread_num();
        for (long i = 0; i < rows; i++) {
            if ((i / chunk) % T != me) continue;
            for (long j = 0; j < cols; j += per_page) {
                a[i * cols + j] = (double)((i + j) % 7);
                b[i * cols + j] = (double)(1 + i % 3);
            }
        }
    }
    swap_in(a, rows, cols, 0);
    swap_in(b, rows, cols, 1);
}
""", {'hidden_init_arrays'}, "attacker S (A05_mremap): the master's own pages mremap'd over the arrays after the first touch", reason='not among what the part allows'))
