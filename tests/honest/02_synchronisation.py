"""Right answers to lab 02 written another way (the construct part so far): master with an
explicit barrier after masked, or a reduction in a parallel region per repetition."""

from honest import right
from wrong_answers import Wrong

HONEST = [
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "master";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
#pragma omp masked
            {
                s->updates += 1;
            }
#pragma omp barrier
        }
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    int rc = hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
    return rc;
}
""", why="master: masked in braces, then the barrier the table asks for"),
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp atomic update
        ++(s->updates);
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", why="atomic update of ++(s->updates) (a fresh attacker's, 0/3 before)"),
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "single";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp single nowait
        s[0].updates += 1;
#pragma omp barrier
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", why="single nowait then a barrier, the counter as s[0].updates (a fresh attacker's, 0/3 before)"),
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "reduction";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    for (long j = 0; j < inner; j++) {
        long x = 0;
#pragma omp parallel reduction(+:x)
        {
            hl_delay(s->delay);
            x += 1;
        }
        s->updates += x;
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", why="reduction: a parallel region per repetition, its sum added after it"),
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "single";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        long j = inner;
        while (j-- > 0) {
            hl_delay(s->delay);
#pragma omp single
            {
                s->updates += 1;
            }
        }
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    hl_work_fn test = construct_test;
    return hl_measure(ctx, construct_name, test, reference_loop, s, method, out);
}
""", why="single in a while loop counting down, the test passed through a variable"),
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    volatile long *count = &s->updates;
#pragma omp parallel
    {
        for (long j = inner; j > 0; j--) {
            hl_delay(s->delay);
#pragma omp atomic update
            *count += 1;
        }
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", why="atomic update through a pointer, the loop counting down"),
]

HONEST += [
    # (a) epcc_interval
    right("epcc_interval", """
import statistics


def epcc_interval(test, reference) -> tuple[float, float]:
    t = [float(x) for x in test]
    r = [float(x) for x in reference]
    middle = statistics.mean(t) - statistics.mean(r)
    half = 1.96 * (statistics.stdev(t) + statistics.stdev(r))
    return (middle - half, middle + half)
""", why="the statistics module on plain lists"),
    right("epcc_interval", """
import math


def epcc_interval(test, reference):
    def mean_sd(values):
        xs = [float(v) for v in values]
        m = sum(xs) / len(xs)
        return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))

    (mt, st), (mr, sr) = mean_sd(test), mean_sd(reference)
    return mt - mr - 1.96 * (st + sr), mt - mr + 1.96 * (st + sr)
""", why="means and sample deviations summed by hand"),
    # (b) imbalance_report
    right("imbalance_report", """
def imbalance_report(timeline):
    master = timeline[timeline["thread"] == 0]
    per_rank = master.assign(took=master["end"] - master["start"]).pivot_table(
        index="rank", columns="phase", values="took", aggfunc="sum")
    waited = per_rank["barrier"] - per_rank["barrier"].min()  # the wait beyond the least
    whole = timeline["end"].max() - timeline["start"].min()
    return {"efficiency": float(per_rank["compute"].mean() / per_rank["compute"].max()),
            "lost_rank_seconds": float(waited.sum()),
            "predicted_seconds": float(whole - waited.mean())}
""", why="a pivot table of the master's seconds per rank and phase"),
    right("imbalance_report", """
def imbalance_report(timeline):
    compute, wait = {}, {}
    for row in timeline.itertuples():
        if row.thread != 0:
            continue
        into = compute if row.phase == "compute" else wait
        into[row.rank] = into.get(row.rank, 0.0) + (row.end - row.start)
    least = min(wait.values())
    extra = [w - least for w in wait.values()]
    return {
        "efficiency": sum(compute.values()) / len(compute) / max(compute.values()),
        "lost_rank_seconds": sum(extra),
        "predicted_seconds": (max(timeline["end"]) - min(timeline["start"])) - sum(extra) / len(extra),
    }
""", why="dictionaries summed row by row"),
    # (c) h2mol_savings
    right("h2mol_savings", """
def h2mol_savings(rows):
    out = {}
    for p, avg, low in zip(rows["processors"], rows["avg_s"], rows["min_s"]):
        out[int(p)] = {"lost_processor_seconds": p * (avg - low), "saving_s": avg - low}
    frame = pd.DataFrame.from_dict(out, orient="index")[["lost_processor_seconds", "saving_s"]]
    frame.index.name = "processors"
    return frame
""", why="a dict of rows, in the table's order"),
    right("h2mol_savings", """
def h2mol_savings(rows):
    saving = rows["avg_s"] - rows["min_s"]
    return (rows.assign(saving_s=saving, lost_processor_seconds=saving * rows["processors"])
                .set_index("processors")[["lost_processor_seconds", "saving_s"]])
""", why="assign and set_index on the table itself"),
    right("h2mol_savings", """
def h2mol_savings(rows):
    r = rows.sort_values("processors")
    out = pd.DataFrame(index=pd.Index(r["processors"].to_list(), name="processors"))
    out["lost_processor_seconds"] = ((r["avg_s"] - r["min_s"]) * r["processors"]).to_numpy()
    out["saving_s"] = (r["avg_s"] - r["min_s"]).to_numpy()
    return out
""", why="rows sorted by processor count (a fresh attacker's, 0/3 before: the index is the count)"),
    # (d) construct_overhead
    right("construct_overhead", """
import statistics


def _iv(t, r):
    t, r = [float(x) for x in t], [float(x) for x in r]
    mid = statistics.mean(t) - statistics.mean(r)
    half = 1.96 * (statistics.stdev(t) + statistics.stdev(r))
    return ((mid - half) * 1e6, (mid + half) * 1e6)


_mine = construct_run.records[construct_run.records["record"] == "sample"]
my_interval_us = _iv(_mine.loc[_mine["kind"] == "test", "seconds"],
                     _mine.loc[_mine["kind"] == "reference", "seconds"])
compare_with = "barrier"
_at = sweep.query("threads == @CPUS")
lab_interval_us = _iv(_at.loc[_at["construct"] == "barrier", "seconds"],
                      _at.loc[_at["construct"] == "reference", "seconds"])
""", why="the run's own records and the statistics module, compared with barrier"),
    right("construct_overhead", """
_s = construct_run.records.query("record == 'sample'")
my_interval_us = tuple(1e6 * v for v in epcc_interval(_s[_s["kind"] == "test"]["seconds"],
                                                      _s[_s["kind"] == "reference"]["seconds"]))
compare_with = "single"
_same = sweep[sweep["threads"] == CPUS]
lab_interval_us = tuple(1e6 * v for v in epcc_interval(
    _same[_same["construct"] == compare_with]["seconds"], _same[_same["construct"] == "reference"]["seconds"]))
""", why="part (a)'s epcc_interval reused, compared with single"),
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "single";

/* single with its barrier written out: nowait, then the same barrier the construct implies */
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp single nowait
        s->updates += 1;
#pragma omp barrier
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", why="single nowait, then an explicit barrier: single's own barrier written out (attackF)"),
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";

static void one_thread(construct_state *s, long inner) {
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp atomic update
        ++s->updates;
    }
}

void construct_test(void *arg, long inner) {
#pragma omp parallel
    one_thread((construct_state *)arg, inner);
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", why="the delay/atomic loop in a static helper the region calls (attackF)"),
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";

static inline void pause_then_count(construct_state *s) {
    hl_delay(s->delay);
#pragma omp atomic
    s->updates += 1;
}

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++)
        pause_then_count(s);
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", why="delay and atomic in a static inline helper called by the loop (attackF)"),
    # attackF's honest2: groupby and part (a)'s epcc_interval, compared with barrier; (e) runs it
    # again apart on a run of the cell and a drawn sweep (sync.exercise.overhead_apart)
    right("construct_overhead", """
def _iv(frame, col, test_name):
    g = frame.groupby(col)["seconds"]
    t, r = g.get_group(test_name), g.get_group("reference")
    lo, hi = epcc_interval(t.to_list(), r.to_list())
    return (lo * 1e6, hi * 1e6)

compare_with = "barrier"
my_interval_us = _iv(my_samples, "kind", "test")
lab_interval_us = _iv(sweep.query("threads == @CPUS"), "construct", compare_with)
print(f"yours: {my_interval_us} µs; the lab's {compare_with}: {lab_interval_us} µs")
""", why="groupby per kind and construct, part (a)'s epcc_interval, run again apart"),
    # a fresh attacker's right answer (n02macro, 2026-12-05): the delay as a statement macro
    # `do { ... } while (0)`; 0/3 while the macro's once-loop counted as the delay's loop
    right("construct_code", '%%c CONSTRUCT_C construct_bench\n/* a right answer: the delay written as the usual statement-like macro (do { } while (0)) */\nconst char *const construct_name = "atomic";\n#define DELAY(s) do { hl_delay((s)->delay); } while (0)\n\nvoid construct_test(void *arg, long inner) {\n    construct_state *s = arg;\n#pragma omp parallel\n    for (long j = 0; j < inner; j++) {\n        DELAY(s);\n#pragma omp atomic\n        s->updates++;\n    }\n}\n\nint measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {\n    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);\n}\n',
          why="the delay as a do { } while (0) statement macro"),
    # a fresh attacker's right answer (R02right, 2026-12-05): a countdown loop, `atomic update`
    # with a prefix ++, the region's body in braces (kept full points; here so it stays so)
    right("construct_code", '%%c CONSTRUCT_C construct_bench\nconst char *const construct_name = "atomic";\n\nvoid construct_test(void *arg, long inner) {\n    construct_state *s = (construct_state *)arg;\n#pragma omp parallel\n    {\n        for (long j = inner; j > 0; --j) {\n            hl_delay(s->delay);\n#pragma omp atomic update\n            ++s->updates;\n        }\n    }\n}\n\nint measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {\n    int rc = hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);\n    return rc;\n}\n',
          why="a countdown loop and `#pragma omp atomic update` on ++s->updates"),
]

# attacker T's R02_reduction (2026-12-06, full points twice)
HONEST.append(Wrong((('construct_code', r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "reduction";

/* EPCC's reduction test: one parallel region per repetition, every thread delays and adds 1 */
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    for (long j = 0; j < inner; j++) {
        long x = 0;
#pragma omp parallel reduction(+ : x)
        {
            hl_delay(s->delay);
            x += 1;
        }
        s->updates += x;
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    hl_work_fn test = construct_test, reference = reference_loop;
    return hl_measure(ctx, construct_name, test, reference, s, method, out);
}
""".strip()), ('construct_overhead', r"""
my_interval_us = compare_with = lab_interval_us = None  # your intervals and your choice
by_kind = dict(tuple(my_samples.groupby("kind")["seconds"]))
my_interval_us = tuple(1e6 * v for v in epcc_interval(by_kind["test"], by_kind["reference"]))
compare_with = "reduction"
same = sweep.query("threads == @CPUS")
lab_interval_us = tuple(1e6 * v for v in epcc_interval(
    same.query("construct == @compare_with")["seconds"], same.query("construct == 'reference'")["seconds"]))
print(f"yours: {my_interval_us} µs; the lab's {compare_with}: {lab_interval_us} µs")
""".strip()),), frozenset(), 'a parallel reduction(+:x) region per repetition, hl_measure called through hl_work_fn variables', "honest"))

# attacker V's right answers (2026-12-06, full points graded)
HONEST += [
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "master";

static void repeat_masked(construct_state *s, long inner) {
    volatile long *target = &s->updates;
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp masked
        {
            *target += 1;
        }
#pragma omp barrier
    }
}

void construct_test(void *arg, long inner) {
    construct_state *s = (construct_state *)arg;
#pragma omp parallel default(none) shared(s, inner)
    repeat_masked(s, inner);
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    int rc = hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
    return rc;
}
""", why="attacker V: masked + barrier in a static helper"),
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "reduction";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long j = 0;
    while (j < inner) {
        long x = 0;
#pragma omp parallel reduction(+ : x)
        {
            hl_delay(s->delay);
            x += 1;
        }
        s->updates += x;
        ++j;
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    hl_work_fn test = construct_test, reference = reference_loop;
    return hl_measure(ctx, construct_name, test, reference, s, method, out);
}
""", why="attacker V: a while loop, a reduction region per repetition, function-pointer locals"),
]

# a fresh attacker's right answer (A6 r1_master, 2026-12-07): one repetition (delay, masked, barrier)
# in a static helper called from a while loop counting down
HONEST.append(right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "master";

/* one repetition of the table's master row */
static void one_rep(construct_state *st) {
    hl_delay(st->delay);
#pragma omp masked
    st->updates++;
#pragma omp barrier
}

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        long left = inner;
        while (left-- > 0)
            one_rep(s);
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    int rc = hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
    return rc;
}
""", why="master: a helper per repetition (masked without braces, then the barrier), a while loop"))
