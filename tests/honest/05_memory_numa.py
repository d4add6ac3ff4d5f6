"""Right answers to lab 05 written another way: the table built row by row from dictionaries or
with a pivot of the kept passes; the page map with a loop over pages or with numpy's repeat and
the policies checked in another order; the initialisation with the loops swapped, one array at
a time, or the rows dealt out in chunks by hand."""

from honest import right

HONEST = [
    # (a) bandwidth_table
    right("bandwidth_table", """
raw = mt.raw_times(stream_runs, "triad")


def bandwidth_table(raw):
    best, size = {}, {}
    for t, rep, sec, nbytes in zip(raw["threads"], raw["repetition"], raw["seconds"], raw["bytes"]):
        t = int(t)
        size.setdefault(t, float(nbytes))
        if rep > 0:  # STREAM drops the first pass
            best[t] = min(best.get(t, float("inf")), float(sec))
    rows = {t: {"best_s": best[t], "gb_s": size[t] / best[t] / 1e9} for t in sorted(best)}
    top, one = max(r["gb_s"] for r in rows.values()), rows[1]["gb_s"]
    for t, r in rows.items():
        r["pct_of_max"] = 100.0 * r["gb_s"] / top
        r["speedup"] = r["gb_s"] / one
        r["efficiency"] = r["speedup"] / t
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "threads"
    return frame
""", why="dictionaries filled pass by pass, then one frame"),
    right("bandwidth_table", """
raw = mt.raw_times(stream_runs, "triad")


def bandwidth_table(raw):
    after_first = raw.query("repetition != 0")
    table = after_first.pivot_table(index="threads", values="seconds", aggfunc="min").rename(
        columns={"seconds": "best_s"})
    table["gb_s"] = raw.groupby("threads")["bytes"].max() / table["best_s"] / 1e9
    table = table.assign(pct_of_max=table["gb_s"] / table["gb_s"].max() * 100,
                         speedup=table["gb_s"] / table.loc[1, "gb_s"])
    table["efficiency"] = table["speedup"] / table.index.to_numpy()
    return table
""", why="a pivot table of the passes after the first, assign for the ratios"),
    # (b) predict_page_nodes
    right("predict_page_nodes", """
def predict_page_nodes(pages, init, thread_nodes, policy="default", nodes=(0,), bind_node=0):
    if isinstance(thread_nodes, dict):
        thread_nodes = [thread_nodes[t] for t in range(len(thread_nodes))]
    out = []
    for p in range(pages):
        if init == "none":
            out.append(-2)  # nobody touched it: not present
        elif policy == "bind":
            out.append(bind_node)
        elif policy == "interleave":
            out.append(nodes[p % len(nodes)])
        elif init == "serial":
            out.append(thread_nodes[0])
        else:  # thread t touches pages t*P//T .. (t+1)*P//T - 1
            t = 0
            while p >= (t + 1) * pages // len(thread_nodes):
                t += 1
            out.append(thread_nodes[t])
    return np.array(out, dtype=int)
""", why="page by page, the thread found by walking the block bounds"),
    right("predict_page_nodes", """
def predict_page_nodes(pages, init, thread_nodes, policy="default", nodes=(0,), bind_node=0):
    team = [thread_nodes[t] for t in range(len(thread_nodes))]
    if init == "none":
        return -2 * np.ones(pages, dtype=np.int64)
    placed = {
        "interleave": lambda: np.resize(np.asarray(nodes), pages),
        "bind": lambda: np.repeat(bind_node, pages),
    }
    if policy in placed:
        return placed[policy]()
    if init == "serial":
        return np.repeat(team[0], pages)
    bounds = [t * pages // len(team) for t in range(len(team) + 1)]
    return np.repeat(team, np.diff(bounds))
""", why="numpy's resize and repeat over the block bounds"),
    # (c) init_arrays
    right("init_arrays", r"""
%%c TOUCH_C touch_schedule
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
#pragma omp parallel
    {
#pragma omp for schedule(static, chunk) nowait
        for (long i = 0; i < rows; i++)
            for (long j = 0; j < cols; j++)
                a[i * cols + j] = (double)((i + j) % 7);
#pragma omp for schedule(static, chunk)
        for (long i = 0; i < rows; i++)
            for (long j = 0; j < cols; j++)
                b[i * cols + j] = (double)(1 + i % 3);
    }
}
""", why="one array at a time, two loops of the same schedule in one region"),
    right("init_arrays", r"""
%%c TOUCH_C touch_schedule
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
#pragma omp parallel
    {
        const long me = omp_get_thread_num(), team = omp_get_num_threads();
        /* schedule(static, chunk) by hand: chunk k of rows goes to thread k % team */
        for (long first = me * chunk; first < rows; first += team * chunk)
            for (long i = first; i < first + chunk && i < rows; i++) {
                double *ra = a + i * cols, *rb = b + i * cols;
                for (long j = cols - 1; j >= 0; j--) {
                    ra[j] = (double)((i + j) % 7);
                    rb[j] = (double)(1 + i % 3);
                }
            }
    }
}
""", why="the chunks dealt out by hand, each row written from its end"),
    right("init_arrays", r"""
%%c TOUCH_C touch_schedule
#include <string.h>
#include <stdlib.h>
/* each thread builds a row in its own buffer and copies it in (memcpy), orphaned omp for */
static void fill(double *a, double *b, long rows, long cols, long chunk) {
    double *ra = malloc((size_t)cols * sizeof *ra), *rb = malloc((size_t)cols * sizeof *rb);
#pragma omp for schedule(static, chunk)
    for (long i = 0; i < rows; i++) {
        for (long j = 0; j < cols; j++) { ra[j] = (double)((i + j) % 7); rb[j] = (double)(1 + i % 3); }
        memcpy(a + i * cols, ra, (size_t)cols * sizeof *ra);
        memcpy(b + i * cols, rb, (size_t)cols * sizeof *rb);
    }
    free(ra);
    free(rb);
}

void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
#pragma omp parallel
    fill(a, b, rows, cols, chunk);
}
""", why="each row built in a buffer of the thread's own and copied in with memcpy (a fresh "
        "attacker's: glibc's `rep movsb` stepped byte by byte ran past the time limit, 0/4 before)"),
    # fresh attacker Y (2026-12-06): each row written inside a team of one nested in the outer
    # team's thread, which runs on that OS thread (0/4 before: its thread number 0 was compared)
    right("init_arrays", r"""
%%c TOUCH_C touch_schedule
/* right (unusual): the outer team's static,chunk loop, each row written inside a nested team of
   ONE thread (a team of one runs on the encountering OS thread, so the writer is the same thread) */
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
    #pragma omp parallel
    {
        #pragma omp for schedule(static, chunk)
        for (long i = 0; i < rows; i++) {
            #pragma omp parallel num_threads(1)
            for (long j = 0; j < cols; j++) {
                a[i * cols + j] = (double)((i + j) % 7);
                b[i * cols + j] = (double)(1 + i % 3);
            }
        }
    }
}
""", why="fresh attacker Y (A05 r3): each row written in a team of one nested in the computing thread"),
]

# attacker S's R05_rr_memcpy (2026-12-06, full points)
HONEST.append(right('init_arrays', r"""
%%c TOUCH_C touch_schedule
/* Each thread walks its own chunks round robin (chunk c belongs to thread c % T, as in
 * schedule(static, chunk)), builds each row in a buffer of its own and copies it in. */
#include <string.h>
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
#pragma omp parallel
    {
        int T = omp_get_num_threads(), me = omp_get_thread_num();
        double *ra = malloc((size_t)cols * sizeof *ra), *rb = malloc((size_t)cols * sizeof *rb);
        for (long c = me; c * chunk < rows; c += T) {
            long end = (c + 1) * chunk < rows ? (c + 1) * chunk : rows;
            for (long i = c * chunk; i < end; i++) {
                for (long j = 0; j < cols; j++) {
                    ra[j] = (double)((i + j) % 7);
                    rb[j] = (double)(1 + i % 3);
                }
                memcpy(a + i * cols, ra, (size_t)cols * sizeof *ra);
                memcpy(b + i * cols, rb, (size_t)cols * sizeof *rb);
            }
        }
        free(ra);
        free(rb);
    }
}
""", why="chunks walked round robin, each row built in a private buffer and memcpy'd in"))
