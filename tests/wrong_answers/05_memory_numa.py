"""Lab 05: wrong answers a hurried student could hand in (see tests/wrong_answers/__init__.py)."""

from wrong_answers import wrong

BANDWIDTH = {"hidden_bandwidth_table"}
PREDICT = {"hidden_predict_page_nodes"}
TOUCH = {"hidden_init_arrays"}

BANDWIDTH_SOLUTION = '''
raw = mt.raw_times(stream_runs, "triad")

def bandwidth_table(raw):
    kept = raw[raw["repetition"] > 0]
    best = kept.groupby("threads").agg(best_s=("seconds", "min"), bytes=("bytes", "first"))
    out = pd.DataFrame({"best_s": best["best_s"]})
    out["gb_s"] = best["bytes"] / best["best_s"] / 1e9
    out["pct_of_max"] = 100 * out["gb_s"] / out["gb_s"].max()
    out["speedup"] = out["gb_s"] / out["gb_s"].loc[1]
    out["efficiency"] = out["speedup"] / out.index
    return out
'''

PREDICT_SOLUTION = '''
def predict_page_nodes(pages, init, thread_nodes, policy="default", nodes=(0,), bind_node=0):
    threads = len(thread_nodes)
    if init == "none":
        return np.full(pages, -2)
    if policy == "interleave":
        return np.array([nodes[p % len(nodes)] for p in range(pages)])
    if policy == "bind":
        return np.full(pages, bind_node)
    if init == "serial":
        return np.full(pages, thread_nodes[0])
    out = np.empty(pages, dtype=int)
    for t in range(threads):
        out[t * pages // threads:(t + 1) * pages // threads] = thread_nodes[t]
    return out
'''

TOUCH_SOLUTION = r'''%%c TOUCH_C touch_schedule
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
#pragma omp parallel for schedule(static, chunk)
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            a[i * cols + j] = (double)((i + j) % 7);
            b[i * cols + j] = (double)(1 + i % 3);
        }
}
'''


def changed(solution: str, old: str, new: str) -> str:
    assert old in solution, old
    return solution.replace(old, new)


WRONG = [
    # (a) bandwidth_table (the warm-up)
    wrong("bandwidth_table", changed(BANDWIDTH_SOLUTION, 'kept = raw[raw["repetition"] > 0]', "kept = raw"),
          BANDWIDTH, why="the first pass kept (STREAM drops it)", reason="the raw times give"),
    wrong("bandwidth_table", changed(BANDWIDTH_SOLUTION, 'out["speedup"] / out.index', 'out["speedup"]'),
          BANDWIDTH, why="efficiency left as the speedup (not divided by threads)", reason="the raw times give"),
    # (b) predict_page_nodes
    wrong("predict_page_nodes", changed(
        PREDICT_SOLUTION,
        "    out = np.empty(pages, dtype=int)\n    for t in range(threads):\n"
        "        out[t * pages // threads:(t + 1) * pages // threads] = thread_nodes[t]\n    return out",
        "    parts = np.array_split(np.arange(pages), threads)  # remainder to the first threads\n"
        "    return np.concatenate([np.full(len(p), thread_nodes[t]) for t, p in enumerate(parts)])"),
        PREDICT, why="blocks split as np.array_split, not t*P//T as the kernel does", reason="the kernel's rules give"),
    wrong("predict_page_nodes", changed(PREDICT_SOLUTION, "return np.full(pages, -2)",
                                        "return np.full(pages, thread_nodes[0])"),
          PREDICT, why="untouched pages placed on the master's node (they are not present)", reason="the kernel's rules give"),
    # (c) init_arrays in C
    wrong("init_arrays", changed(TOUCH_SOLUTION, "#pragma omp parallel for schedule(static, chunk)\n", ""),
          TOUCH, why="serial initialisation: the master touches every page", reason="first write than the thread computing"),
    wrong("init_arrays", changed(TOUCH_SOLUTION, "schedule(static, chunk)", "schedule(static)"),
          TOUCH, why="static blocks, not the compute loop's chunks", reason="first write than the thread computing"),
]
