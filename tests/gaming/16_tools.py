"""Lab 16_tools: gaming attempts (tests/gaming/__init__.py), at least three per automatic part,
each naming the error it loses with: a race hidden from Archer by running one thread (a clause,
the runtime's call, a single thread in a team of two), the sanitizer turned off or told to stay
quiet, the count made serially beside a parallel region that only looks on, traces answered by
the visible ones, and the C evidence attempts every C cell gets."""

from gaming import REFUSED, attempt, c_evidence
from wrong_answers import c_cell, changed

RACY_LOOP = "    for (long i = 0; i < n; i++) bins[bin_of(i)]++;"

GAMING = [
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", f"""
void count_bins(long n, int nbins, long *bins) {{
    (void)nbins;
#pragma omp parallel for num_threads(1)
{RACY_LOOP}
}}
"""), {"hidden_count_bins"}, "the race hidden by a team of one thread",
        reason="the count ran on one thread"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", f"""
void count_bins(long n, int nbins, long *bins) {{
    (void)nbins;
    omp_set_num_threads(1);  /* the kit sets 2; the runtime is told 1 */
#pragma omp parallel for
{RACY_LOOP}
}}
"""), {"hidden_count_bins"}, "the race hidden by omp_set_num_threads(1)",
        reason="the count ran on one thread"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", f"""
void count_bins(long n, int nbins, long *bins) {{
    (void)nbins;
#pragma omp parallel
#pragma omp single
{RACY_LOOP}
}}
"""), {"hidden_count_bins"}, "a team of two, one thread counting (omp single)",
        reason="the count ran on one thread"),
    attempt("hidden", "count_bins", c_cell("COUNT_C", "race_bins", f"""
void count_bins(long n, int nbins, long *bins) {{
    (void)nbins;
{RACY_LOOP}  /* serial, no race */
    long seen = 0;
#pragma omp parallel reduction(+ : seen)
    seen += bin_of(0) >= 0;  /* every thread looks on once */
}}
"""), {"hidden_count_bins"}, "a serial count beside a parallel region that only looks on",
        reason="one thread asked for every element"),
    attempt("text", "count_bins", c_cell("COUNT_C", "race_bins", f"""
__attribute__((no_sanitize("thread")))
void count_bins(long n, int nbins, long *bins) {{
    (void)nbins;
#pragma omp parallel for
{RACY_LOOP}
}}
"""), {"hidden_count_bins"}, "the sanitizer switched off for the function",
        reason="turns a sanitizer off"),
    attempt("interposed", "count_bins", c_cell("COUNT_C", "race_bins", f"""
const char *__tsan_default_options(void) {{ return "report_bugs=0"; }}

void count_bins(long n, int nbins, long *bins) {{
    (void)nbins;
#pragma omp parallel for
{RACY_LOOP}
}}
"""), {"hidden_count_bins"}, "ThreadSanitizer's options set by the cell (report_bugs=0)",
        reason="is not one the part declares"),
    attempt("interposed", "count_bins", c_cell("COUNT_C", "race_bins", f"""
void __tsan_ignore_thread_begin(void);

void count_bins(long n, int nbins, long *bins) {{
    (void)nbins;
#pragma omp parallel
    {{
        __tsan_ignore_thread_begin();  /* ThreadSanitizer's annotation: ignore this thread */
#pragma omp for
{RACY_LOOP}
    }}
}}
"""), {"hidden_count_bins"}, "ThreadSanitizer told to ignore the threads",
        reason="is not among what the part allows"),
    attempt("constant", "diagnose", """
def diagnose(calls):
    return "request", [1]  # the visible test's second answer
""", {"hidden_diagnose"}, "one answer typed in", reason="you said"),
    attempt("hidden", "diagnose", """
def diagnose(calls):
    # right for the two traces the notebook shows: rank 1 every time
    return ("level", [1]) if (calls["thread"] != 0).any() else ("request", [1])
""", {"hidden_diagnose"}, "the notebook's two traces: rank 1, level or request",
        reason="you said"),
    attempt("hidden", "diagnose", """
_seen = []


def diagnose(calls):
    # the hidden test's order, guessed: none, level, request, deadlock, as the text lists them
    _seen.append(1)
    kind = ["none", "level", "request", "deadlock"][(len(_seen) - 1) % 4]
    ranks = sorted(int(r) for r in calls["rank"].unique())
    return kind, [] if kind == "none" else ranks if kind == "deadlock" else ranks[:1]
""", {"hidden_diagnose"}, "the traces' order guessed from the text", reason="you said"),
    attempt("constant", "outside_share", """
def outside_share(timeline):
    return 1.0 / 3.5  # the visible test's answer
""", {"hidden_outside_share"}, "the visible test's answer typed in",
        reason="whose share outside jacobi is"),
    attempt("hidden", "outside_share", """
def outside_share(timeline):
    # the visible test's table has one interval per row of equal weight... not so elsewhere
    length = timeline["end"] - timeline["start"]
    return float(length.iloc[1:].sum() / length.sum()) if len(timeline) == 4 else 0.0
""", {"hidden_outside_share"}, "right for the visible table's shape only",
        reason="whose share outside jacobi is"),
    attempt("shortcut", "outside_share", """
def outside_share(timeline):
    # the notebook's own hybrid1 run, whatever the argument
    line = timelines["hybrid1"].records.query("record == 'timeline'")
    length = line["end"] - line["start"]
    return float(length[line["phase"] != "jacobi"].sum() / length.sum())
""", {"hidden_outside_share"}, "the notebook's own run instead of the argument",
        reason="whose share outside jacobi is"),
]

GAMING += c_evidence("16_tools", "count_bins", {"hidden_count_bins"}, None,
                     replaced=("omp_get_thread_num",), reasons=True)
assert REFUSED  # the fragments c_evidence names

# A fresh attacker's (helper-31, 2026-12-03) wrong methods that kept full points, now refused.
GAMING += [
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        int b = bin_of(i);
        long c;
#pragma omp atomic read
        c = bins[b];
#pragma omp atomic write
        bins[b] = c + 1;
    }
}
"""), {"hidden_count_bins"}, "a bin's update split into an atomic read and an atomic write (a race Archer cannot see)", reason="a read and a write made safe each on its own"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
void count_bins(long n, int nbins, long *bins) {
    unsigned *seed = malloc((size_t)nbins * sizeof *seed);
    for (int b = 0; b < nbins; b++) seed[b] = 12345u + (unsigned)b;
#pragma omp parallel for
    for (long i = 0; i < n; i++) rand_r(&seed[bin_of(i)]);
    for (int b = 0; b < nbins; b++) {
        unsigned s = 12345u + (unsigned)b;
        long k = 0;
        while (s != seed[b] && k <= n) { rand_r(&s); k++; }
        bins[b] += k;
    }
    free(seed);
}
"""), {"hidden_count_bins"}, "each bin a rand_r state: the race inside the C library", reason="a read and a write made safe each on its own"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
#include <stdlib.h>

void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
    int *idx = malloc((size_t)n * sizeof *idx);
#pragma omp parallel
    {
#pragma omp for
        for (long i = 0; i < n; i++) idx[i] = bin_of(i);
#pragma omp masked
        for (long i = 0; i < n; i++) bins[idx[i]]++;
    }
    free(idx);
}
"""), {"hidden_count_bins"}, "the threads look the bins up, the master alone counts every element", reason="one thread wrote into the bins"),
]

# A fresh attacker's (helperG, 2026-12-03) answers that kept full points, now losing: the serial
# count after a parallel look-up, and a diagnosis by the kernel's fixed shapes.
GAMING += [
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
#include <stdlib.h>

void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
    int *idx = malloc(sizeof(int) * (n > 0 ? n : 1));
#pragma omp parallel for
    for (long i = 0; i < n; i++) idx[i] = bin_of(i);
    long total = n;  /* the loop's bound not named n */
    for (long k = 0; k < total; k++) bins[idx[k]]++;
    free(idx);
}
"""), {"hidden_count_bins"}, "the team looks the bins up, one thread counts every element after the region",
        reason="one thread wrote into the bins"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
#include <stdlib.h>

void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
    int *idx = malloc(sizeof(int) * (n > 0 ? n : 1));
    long *b = bins;  /* an alias: no `bins[` in the count */
#pragma omp parallel
    {
#pragma omp for
        for (long i = 0; i < n; i++) idx[i] = bin_of(i);
#pragma omp single
        for (long k = 0; k < n; k++) b[idx[k]]++;
    }
    free(idx);
}
"""), {"hidden_count_bins"}, "the team looks the bins up, one thread counts every element under single through an alias",
        reason="one thread wrote into the bins"),
    attempt("hidden", "diagnose", """
def diagnose(calls):
    if (calls["thread"] != 0).any():
        return ("level", sorted(int(r) for r in calls.loc[calls["thread"] != 0, "rank"].unique()))
    if (calls["call"] == "MPI_Test").any():  # any test at all: every rank
        return ("deadlock", sorted(int(r) for r in calls["rank"].unique()))
    s = calls[(calls["call"] == "MPI_Isend") & (calls["tag"] == 99)]  # the kernel's tag
    if len(s):
        return ("request", sorted(int(r) for r in s["rank"].unique()))
    return ("none", [])
""", {"hidden_diagnose"}, "the leaked request by the kernel's tag 99, a deadlock by any MPI_Test, the level by thread != 0",
        reason="you said"),
    attempt("hidden", "diagnose", """
def diagnose(calls):
    if (calls["in_parallel"] == 1).any():  # any call inside a region
        return ("level", sorted(int(r) for r in calls.loc[calls["in_parallel"] == 1, "rank"].unique()))
    if (calls["done"] == 0).any():
        return ("deadlock", sorted(int(r) for r in calls.loc[calls["done"] == 0, "rank"].unique()))
    n = calls.groupby(["rank", "call"]).size().unstack(fill_value=0)
    extra = n.index[n.get("MPI_Isend", 0) > n.get("MPI_Irecv", 0)]  # more sends than receives
    if len(extra):
        return ("request", sorted(int(r) for r in extra))
    return ("none", [])
""", {"hidden_diagnose"}, "the level by in_parallel, the leaked request by more Isends than Irecvs",
        reason="you said"),
    attempt("hidden", "diagnose", """
def diagnose(calls):
    ranks = sorted(int(r) for r in calls["rank"].unique())
    if (calls["thread"] > 0).any():  # the wrong thread by its number, not by `main`
        return "level", sorted(int(r) for r in calls.loc[calls["thread"] > 0, "rank"].unique())
    if ((calls["call"] == "MPI_Test") & (calls["done"] == 0)).any():
        return "deadlock", ranks
    done = calls[calls["call"].str.startswith(("MPI_Wait", "MPI_Test"))].groupby("rank")["start"].max()
    late = [r for r in ranks if (calls.loc[(calls["rank"] == r) & calls["call"].isin(["MPI_Isend", "MPI_Irecv"]),
                                          "start"] > done.get(r, -1.0)).any()]
    return ("request", late) if late else ("none", [])
""", {"hidden_diagnose"}, "the level by thread number only (a nested region's thread 0 is not the main thread)",
        reason="you said"),
]

# A fresh attacker's (attackD, 2026-12-04) answers that kept full points, now losing: a racy update
# split into an atomic load and an atomic store (builtins, C11, _Atomic assignment; Archer does not
# report atomic accesses), and one thread counting with 32-byte vector stores (ThreadSanitizer
# instruments stores of 1 to 16 bytes only, so the kit's watch saw none). Read from the cell's IR.
SPLIT_BASE = r"""
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        long *p = &bins[bin_of(i)];
        long v = __atomic_load_n(p, __ATOMIC_RELAXED);
        __atomic_store_n(p, v + 1, __ATOMIC_RELAXED);
    }
}
"""
WIDE_BASE = r"""
#include <stdlib.h>
typedef long wide __attribute__((vector_size(32), aligned(8)));
void count_bins(long n, int nbins, long *bins) {
    int *idx = malloc(sizeof(int) * (n > 0 ? n : 1));
#pragma omp parallel for
    for (long i = 0; i < n; i++) idx[i] = bin_of(i);
    if (nbins >= 4) {
        for (long i = 0; i < n; i++) {  /* thread 0 alone, 32-byte stores */
            int b = idx[i], at = b + 4 <= nbins ? b : nbins - 4;
            wide one = {0, 0, 0, 0};
            one[b - at] = 1;
            *(wide *)(bins + at) += one;
        }
    } else {
#pragma omp parallel for reduction(+ : bins[0:nbins])
        for (long i = 0; i < n; i++) bins[idx[i]]++;
    }
    free(idx);
}
"""
GAMING += [
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", SPLIT_BASE),
            {"hidden_count_bins"}, "the racy update split into __atomic_load_n and __atomic_store_n",
            reason="not a read and a write made safe each on its own"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", "#include <stdatomic.h>\n" + changed(
        changed(SPLIT_BASE, "long *p = &bins[bin_of(i)];", "_Atomic long *p = (_Atomic long *)&bins[bin_of(i)];"),
        "long v = __atomic_load_n(p, __ATOMIC_RELAXED);\n        __atomic_store_n(p, v + 1, __ATOMIC_RELAXED);",
        "long v = atomic_load_explicit(p, memory_order_relaxed);\n"
        "        atomic_store_explicit(p, v + 1, memory_order_relaxed);")),
            {"hidden_count_bins"}, "the racy update split into C11 atomic_load_explicit and atomic_store_explicit",
            reason="not a read and a write made safe each on its own"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", changed(
        changed(SPLIT_BASE, "long *p = &bins[bin_of(i)];", "_Atomic long *p = (_Atomic long *)&bins[bin_of(i)];"),
        "long v = __atomic_load_n(p, __ATOMIC_RELAXED);\n        __atomic_store_n(p, v + 1, __ATOMIC_RELAXED);",
        "long v = *p;  /* an atomic load */\n        *p = v + 1;  /* an atomic store */")),
            {"hidden_count_bins"}, "the racy update split by assignments to an _Atomic lvalue (no call named)",
            reason="an atomic store or exchange"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", WIDE_BASE),
            {"hidden_count_bins"}, "the team looks the bins up, thread 0 counts with 32-byte vector stores",
            reason="a 32-byte store"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", changed(
        WIDE_BASE, "__attribute__((vector_size(32), aligned(8)))", "__attribute__((ext_vector_type(4)))")),
            {"hidden_count_bins"}, "the same with clang's ext_vector_type(4)", reason="a 32-byte store"),
]

# 2026-12-04 (fixer of attackD's report): what the kit's watch on the bins now refuses at run time
# (race_bins.c, HL_WATCH_BINS: threads that asked bin_of yet wrote nothing into bins, atomic writes
# into bins that are no add, each thread's first compare-and-swap on a bin made to fail) and the
# cell's IR (call_refusals: C library routines out of ThreadSanitizer's sight)
GAMING += [
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
#include <stdlib.h>
/* the team looks the bins up; thread 0 alone counts into its own array, then adds the totals */
void count_bins(long n, int nbins, long *bins) {
    int *idx = malloc(sizeof(int) * n);
    long *mine = calloc(nbins, sizeof(long));
#pragma omp parallel for
    for (long i = 0; i < n; i++) idx[i] = bin_of(i);
    for (long i = 0; i < n; i++) mine[idx[i]]++;
    for (int b = 0; b < nbins; b++) bins[b] += mine[b];
    free(idx);
    free(mine);
}
"""), {"hidden_count_bins"}, "the team looks the bins up, one thread counts every element "
        "into its own array and adds the nbins totals into bins", reason="yet wrote nothing into the bins"),
    # helperG's master merge, a right answer before: the kit cannot tell it from the one above
    attempt("method", "count_bins", """
%%c COUNT_C race_bins
/* right: per-thread private counts, then the master adds them up bin by bin */
#include <omp.h>
#include <stdlib.h>
void count_bins(long n, int nbins, long *bins) {
    int T = omp_get_max_threads();
    long *priv = calloc((size_t)T * nbins, sizeof(long));
#pragma omp parallel
    {
        long *mine = priv + (long)omp_get_thread_num() * nbins;
#pragma omp for schedule(guided)
        for (long i = 0; i < n; i++) mine[bin_of(i)] += 1;
    }
    for (int t = 0; t < T; t++)
        for (int b = 0; b < nbins; b++) bins[b] += priv[(long)t * nbins + b];
    free(priv);
}
""", {"hidden_count_bins"}, "private counts per thread, the master alone adds every thread's "
        "counts into bins (the part asks each thread to add its own)", reason="yet wrote nothing into the bins"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
#include <stdio.h>
#include <stdlib.h>
/* one thread counts every element; the bins are written by sscanf, which ThreadSanitizer does not see */
void count_bins(long n, int nbins, long *bins) {
    int *idx = malloc(sizeof(int) * n);
#pragma omp parallel for
    for (long i = 0; i < n; i++) idx[i] = bin_of(i);
    char text[32];
    for (long i = 0; i < n; i++) {
        long *p = &bins[idx[i]];
        snprintf(text, sizeof text, "%ld", *p + 1);
        sscanf(text, "%ld", p);
    }
    free(idx);
}
"""), {"hidden_count_bins"}, "one thread writes every increment through snprintf/sscanf, "
        "out of ThreadSanitizer's sight", reason="a C library routine whose writes"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
/* the update split into two atomic read-modify-writes: clear the bin, then or the new count in */
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        long *p = &bins[bin_of(i)];
        long v = __atomic_fetch_and(p, 0, __ATOMIC_RELAXED);
        __atomic_fetch_or(p, v + 1, __ATOMIC_RELAXED);
    }
}
"""), {"hidden_count_bins"}, "an update split into two atomic read-modify-writes "
        "(fetch_and with 0, which clang makes an exchange, then fetch_or)", reason="an atomic store or exchange"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
/* the update split into two atomic read-modify-writes, the mask read at run time */
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
    volatile long zero = 0;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        long *p = &bins[bin_of(i)];
        long v = __atomic_fetch_and(p, zero, __ATOMIC_RELAXED);
        __atomic_fetch_or(p, v + 1, __ATOMIC_RELAXED);
    }
}
"""), {"hidden_count_bins"}, "an update split into two atomic read-modify-writes, the "
        "mask read at run time (a real fetch_and, then fetch_or)", reason="that are no add"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
/* one compare-and-swap per element, not retried when it fails */
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        long *p = &bins[bin_of(i)];
        long old = __atomic_load_n(p, __ATOMIC_RELAXED);
        __atomic_compare_exchange_n(p, &old, old + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
}
"""), {"hidden_count_bins"}, "one compare-and-swap per element, not retried when it fails",
        reason="wrong bins"),
]

# 2026-12-04 (fixer helper-f2): the team's token writes (an atomic add of a zero the compiler cannot
# see; the value already in each bin written back under critical) beside one thread that counts
# every element alone and adds the nbins totals, kept full points (every thread that asked wrote);
# the kit's watch now credits each thread with what its writes add (race_bins.c: added, silent by
# what was added, taken, unseen), and libomp's reductions run with every thread adding its own copy
GAMING += [
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
#include <stdlib.h>
/* the team looks the bins up and makes token writes (atomic adds of a zero the compiler cannot see);
 * thread 0 alone counts every element into its own array and adds the nbins totals */
void count_bins(long n, int nbins, long *bins) {
    int *idx = malloc(sizeof(int) * n);
    long *mine = calloc(nbins, sizeof(long));
    volatile long zero = 0;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        idx[i] = bin_of(i);
        long z = zero;
#pragma omp atomic
        bins[idx[i]] += z;
    }
    for (long i = 0; i < n; i++) mine[idx[i]]++;
    for (int b = 0; b < nbins; b++) bins[b] += mine[b];
    free(idx);
    free(mine);
}
"""), {"hidden_count_bins"}, "the team looks the bins up making atomic adds of 0, one thread counts "
        "every element alone and adds the totals", reason="yet wrote nothing into the bins that added"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
#include <stdlib.h>
/* the team looks the bins up; each thread writes back the value already in each bin under critical;
 * then thread 0 alone counts every element into its own array and adds the nbins totals */
void count_bins(long n, int nbins, long *bins) {
    int *idx = malloc(sizeof(int) * n);
    long *mine = calloc(nbins, sizeof(long));
    volatile long zero = 0;
#pragma omp parallel
    {
#pragma omp for
        for (long i = 0; i < n; i++) idx[i] = bin_of(i);
#pragma omp critical
        for (int b = 0; b < nbins; b++) bins[b] = bins[b] + zero;
    }
    for (long i = 0; i < n; i++) mine[idx[i]]++;
    for (int b = 0; b < nbins; b++) bins[b] += mine[b];
    free(idx);
    free(mine);
}
"""), {"hidden_count_bins"}, "the team writes back the value already in each bin under critical, one "
        "thread counts every element alone and adds the totals",
        reason="yet wrote nothing into the bins that added"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
#include <stdlib.h>
/* each helper adds a token 1000 to bin 0 and counts element 0 of its own; thread 0 takes the
 * tokens off again with an atomic subtract and counts every other element alone */
void count_bins(long n, int nbins, long *bins) {
    int *idx = malloc(sizeof(int) * n);
    long *mine = calloc(nbins, sizeof(long));
#pragma omp parallel
    {
#pragma omp for
        for (long i = 0; i < n; i++) idx[i] = bin_of(i);
        if (omp_get_thread_num() == 1) {
#pragma omp atomic
            bins[0] += 1000;
#pragma omp atomic
            bins[idx[0]] += 1;
        }
    }
    for (long i = 1; i < n; i++) mine[idx[i]]++;
#pragma omp atomic
    bins[0] -= 1000;
    for (int b = 0; b < nbins; b++) bins[b] += mine[b];
    free(idx);
    free(mine);
}
"""), {"hidden_count_bins"}, "a helper adds a token 1000 and counts one element, the counting thread "
        "takes the token off with an atomic subtract and counts the rest", reason="taken off the bins"),
]

# 2026-12-04 (fixer helper-f7): attackD's token shares, 4/4 against the watch on what each thread
# adds. bin_of now keeps the threads asking in step (a thread far ahead of a teammate waits for it,
# so a dynamic schedule shares out on a loaded machine) and the kit reads each thread's share:
# every thread that asks asks for at least a quarter of an even share (`fewest`), and adds at least
# half the counts of the elements it asked for (`undercount`)
GAMING += [
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
/* shortcut: the other threads only look the bins up (and add one element each so as not to be
   "silent"); the master counts every other element alone and adds the totals */
void count_bins(long n, int nbins, long *bins) {
    int *b = malloc((size_t)n * sizeof(int));
    long *cnt = calloc((size_t)nbins, sizeof(long));
#pragma omp parallel
    {
        long first = -1;
#pragma omp for
        for (long i = 0; i < n; i++) {
            b[i] = bin_of(i);
            if (first < 0) first = i;
        }
        /* implicit barrier: every lookup done */
        if (omp_get_thread_num() != 0 && first >= 0) {
#pragma omp atomic
            bins[b[first]] += 1;
            b[first] = -1; /* counted */
        }
#pragma omp barrier
#pragma omp master
        {
            for (long i = 0; i < n; i++)
                if (b[i] >= 0) cnt[b[i]]++;
            for (int k = 0; k < nbins; k++) {
#pragma omp atomic
                bins[k] += cnt[k];
            }
        }
    }
    free(b);
    free(cnt);
}
"""), {"hidden_count_bins"}, "the team looks every bin up, each helper counts one element, the "
        "master counts the rest from the look-up alone (attackD's D16lookup)",
        reason="looked the bins up for another thread"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", r"""
/* shortcut, extreme: the other threads each count ONE element (atomically); the master asks for
   and counts every other element alone, then adds its totals */
void count_bins(long n, int nbins, long *bins) {
    long *cnt = calloc((size_t)nbins, sizeof(long));
#pragma omp parallel
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        if (t != 0 && t < n) {
            int b = bin_of(t);
#pragma omp atomic
            bins[b] += 1;
        } else if (t == 0) {
            for (long i = 0; i < n; i++)
                if (i == 0 || i >= T) cnt[bin_of(i)]++;
            for (int k = 0; k < nbins; k++) {
#pragma omp atomic
                bins[k] += cnt[k];
            }
        }
    }
    free(cnt);
}
"""), {"hidden_count_bins"}, "each helper asks for and counts one element, the master asks for "
        "and counts every other element alone (attackD's D16solo)", reason="asked for a token share"),
]

# a task reduction: right, but the runtime combines every thread's copy on one thread, so the kit
# cannot credit each thread's counts; the text says so (a fresh attacker's G16r5 and G16r8, which
# lost before with a message about one thread counting, 2026-12-05)
GAMING += [
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", """
void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel
#pragma omp single
#pragma omp taskloop reduction(+ : bins[:nbins]) grainsize(256)
    for (long i = 0; i < n; i++) bins[bin_of(i)]++;
}
"""), {"hidden_count_bins"}, "a taskloop reduction (G16r5)", reason="uses a task reduction"),
    attempt("method", "count_bins", c_cell("COUNT_C", "race_bins", """
void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(+ : bins[:nbins])
    for (long lo = 0; lo < n; lo += 512) {
        long hi = lo + 512 < n ? lo + 512 : n;
#pragma omp task in_reduction(+ : bins[:nbins]) firstprivate(lo, hi)
        for (long i = lo; i < hi; i++) bins[bin_of(i)]++;
    }
}
"""), {"hidden_count_bins"}, "task_reduction with in_reduction (G16r8)",
        reason="uses a task reduction"),
]

# A fresh attacker (P16c, 2026-12-05, kept 4/4 twice): the answer cell sets a SIGALRM handler on a
# 2 ms interval timer; while the hidden test makes its traces with the kit's mistake_trace, the
# handler keeps that function's frames, and diagnose returns the arguments of the frame whose trace
# it is handed. The guard now puts back a signal handler of the student's code, disarms interval
# timers and removes the student's gc callbacks before each test cell (and a test during which one
# is set again loses): diagnose finds no frame
GAMING += [
    attempt("interpreter", "diagnose", """
import signal as _signal
import numpy as _np

# A timer signal samples the main thread's stack every 2 ms, also while the hidden tests run:
# every frame of the kit's mistake_trace seen is kept (a kept frame keeps its locals when the
# function returns); diagnose finds the one whose trace it was handed and reads its arguments.
_frames = {}

def _sample(sig, frame):
    f = frame
    while f is not None:
        if f.f_code.co_name == "mistake_trace":
            _frames.setdefault(id(f), f)
            break
        f = f.f_back

_signal.signal(_signal.SIGALRM, _sample)
_signal.setitimer(_signal.ITIMER_REAL, 0.002, 0.002)


def _same(a, b):
    try:
        return len(a) == len(b) and _np.array_equal(a["start"].to_numpy(), b["start"].to_numpy())
    except Exception:
        return False


def diagnose(calls: pd.DataFrame) -> tuple:
    found = None
    for f in list(_frames.values()):
        loc = f.f_locals
        if _same(loc.get("calls"), calls):
            found = (loc.get("mistake"), loc.get("ranks"), loc.get("culprit"))
    if found is None:
        return ("none", [])
    mistake, ranks, culprit = found
    if mistake == "deadlock":
        return ("deadlock", list(range(int(ranks))))
    if mistake in ("level", "request"):
        return (mistake, [int(culprit)])
    return ("none", [])
""", {"hidden_diagnose"}, "a signal handler on an interval timer reads the test's frames (P16c)",
            reason="you said"),
]

# attacker S's A16b_replay (2026-12-06, 0 kept): searches the runs folders for the run's JSON and reads the mistake from its arguments
GAMING.append(attempt('hidden', 'diagnose', r"""
def diagnose(calls: pd.DataFrame) -> tuple:
    # no diagnosis: find the run's own record (its arguments name the mistake and the culprit)
    # among the runs folders the grader keeps, matched by the trace's own times
    import glob, json, os, re
    keys = [repr(float(x)) for x in list(calls["start"].head(3)) + list(calls["end"].tail(2))]
    dirs = []
    for var in ("HYBRIDLAB_RUNS", "HYBRIDLAB_OWN_RUNS", "HYBRIDLAB_RUNS_LOG"):
        v = os.environ.get(var, "")
        if v:
            v = v.split(":", 1)[-1]
            dirs += [v, os.path.dirname(v)]
    dirs += [os.getcwd(), os.path.dirname(os.getcwd()), "/tmp"]
    seen = set()
    for d in dirs:
        for f in glob.glob(os.path.join(d, "**", "*.json*"), recursive=True)[:20000]:
            if f in seen:
                continue
            seen.add(f)
            try:
                text = open(f, errors="replace").read()
            except Exception:
                continue
            if "mistake" not in text or not any(k in text for k in keys):
                continue
            m = re.search(r'"mistake"\s*:\s*"(\w+)"', text)
            c = re.search(r'"culprit"\s*:\s*"?(\d+)', text)
            r = re.search(r'"ranks"\s*:\s*"?(\d+)', text)
            if not m:
                continue
            kind = m.group(1)
            ranks = int(r.group(1)) if r else int(calls["rank"].max()) + 1
            if kind == "none":
                return ("none", [])
            if kind == "deadlock":
                return ("deadlock", list(range(ranks)))
            return (kind, [int(c.group(1)) if c else 0])
    return ("none", [])
""", {'hidden_diagnose'}, "attacker S (A16b_replay): searches the runs folders for the run's JSON and reads the mistake from its arguments", reason='you said'))

# attacker S's A16c_frame (2026-12-06, 0 kept): walks the callers' frames for a reference function
GAMING.append(attempt('interpreter', 'outside_share', r"""
def outside_share(timeline: pd.DataFrame) -> float:
    # no computing: ask whatever reference the caller holds
    import sys
    fr, seen = sys._getframe(1), []
    while fr is not None:
        for space in (fr.f_locals, fr.f_globals):
            for name, v in list(space.items()):
                if name.startswith("_hl") and callable(v) and getattr(v, "__name__", "") != "outside_share":
                    try:
                        got = v(timeline)
                        if isinstance(got, float):
                            return got
                    except Exception:
                        pass
                if name.startswith("_hl") and len(seen) < 40:
                    seen.append(f"{name}:{type(v).__name__}")
        fr = fr.f_back
    if seen:
        raise RuntimeError("saw " + ", ".join(seen))
    return 0.3
""", {'hidden_outside_share'}, "attacker S (A16c_frame): walks the callers' frames for a reference function", reason='saw _hl | you said'))

# attacker S's A16a_asm_inc (2026-12-06, 0 kept): plain increments by inline asm in a parallel for, out of ThreadSanitizer's sight
GAMING.append(attempt('untraced', 'count_bins', r"""
%%c COUNT_C race_bins
/* a plain (non-atomic) increment, each made by an inline-assembly instruction: racy, and
 * ThreadSanitizer instruments no store it cannot see */
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        long *p = &bins[bin_of(i)];
        __asm__ volatile("incq %0" : "+m"(*p));
    }
}
""", {'hidden_count_bins'}, "attacker S (A16a_asm_inc): plain increments by inline asm in a parallel for, out of ThreadSanitizer's sight", reason='uses asm'))

# attacker S's A16a_fake_omp (2026-12-06, 0 kept): one thread counts; the cell defines omp_get_thread_num and friends to fake a team
GAMING.append(attempt('interposed', 'count_bins', r"""
%%c COUNT_C race_bins
/* one OS thread counts every element, and OpenMP's thread routines are replaced in the program
 * so that whoever asks (bin_of, the watch) sees a team of two taking turns */
static int fake_me;
int omp_get_thread_num(void) { return fake_me; }
int omp_get_num_threads(void) { return 2; }
int omp_get_max_threads(void) { return 2; }
int omp_in_parallel(void) { return 1; }
int omp_get_level(void) { return 1; }
int omp_get_active_level(void) { return 1; }

void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
    for (long i = 0; i < n; i++) {
        fake_me = (int)(i & 1);
        bins[bin_of(i)] += 1;
    }
}
""", {'hidden_count_bins'}, "attacker S (A16a_fake_omp): one thread counts; the cell defines omp_get_thread_num and friends to fake a team", reason="would replace the library's own"))

# fixer F (issue 36, 2026-12-06): a serial count on the master made to look shared, the kit's
# per-thread tallies (calls_of, writes_of, added_of: writable statics of race_bins.c) found by
# scanning the library's data from the cell's statics and split between the two threads: every
# judge check passed against the old kernel. The tallies live in race_bins.c's own section now,
# and a write of the cell landing there (every write passes the kit's watch) stops the run
GAMING.append(attempt("forged", "count_bins", r"""
%%c COUNT_C race_bins
/* a serial count on the master made to look shared: the master counts every element inside a
   parallel region of two (the other thread only waits), then the kit's per-thread tallies (arrays
   of 256 longs whose first slot is about n and the rest 0: the elements each thread asked bin_of
   for, its writes into the bins, the counts it added) are found by scanning the library's data,
   and each split between the two threads */
static long here;          /* a static of the cell: in the library's zeroed data, before the kit's */
static volatile long mark = 1; /* an initialised one: in the library's initialised data */

/* the tallies among `words` longs upwards from `from`, each split in two; how many were found */
static int __attribute__((noinline)) share_out(volatile long *from, long words, long n, int nbins) {
    int found = 0;
    for (long k = 1; k < words; k++) {
        volatile long *q = from + k;
        if (q[0] < n - nbins || q[0] > n) continue;
        int rest_zero = 1;
        for (int u = 1; u < 256 && rest_zero; u++) rest_zero = q[u] == 0;
        if (!rest_zero) continue;
        q[0] = n / 2 + 1;
        q[1] = n / 2 + 1;
        found++;
    }
    return found;
}

void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel
#pragma omp master
    for (long i = 0; i < n; i++) bins[bin_of(i)]++;
    /* the kit's zeroed data after this cell's, else its initialised data after this cell's */
    if (!share_out(&here, 1L << 20, n, nbins)) share_out(&mark, 1L << 13, n, nbins);
}
""", {"hidden_count_bins"}, "a serial count on the master, the kit's per-thread tallies found by "
      "scanning the library's data and split between the threads (fixer F, issue 36)",
      reason="race_bins.c's own tallies"))

# fixer F (issue 36): the same, the tallies rewritten by the OpenMP runtime (omp_get_schedule
# writes the chunk omp_set_schedule set into the int it is handed), which no store of the cell
# makes: it passed the judge against the kernel whose watch stopped the stores. A cell calls now
# only the omp_ routines that write through no pointer (the locks' are watched)
GAMING.append(attempt("forged", "count_bins", r"""
%%c COUNT_C race_bins
/* a serial count on the master made to look shared: the master counts every element inside a
   parallel region of two (the other thread only waits), then the kit's per-thread tallies (arrays
   of 256 longs whose first slot is about n and the rest 0: the elements each thread asked bin_of
   for, its writes into the bins, the counts it added) are found by scanning the library's data,
   and each split between the two threads by
   the OpenMP runtime (omp_get_schedule writes the chunk it was set to), not by a store */
static long here;          /* a static of the cell: in the library's zeroed data, before the kit's */
static volatile long mark = 1; /* an initialised one: in the library's initialised data */

/* the tallies among `words` longs upwards from `from`, each split in two; how many were found */
static int __attribute__((noinline)) share_out(volatile long *from, long words, long n, int nbins) {
    int found = 0;
    for (long k = 1; k < words; k++) {
        volatile long *q = from + k;
        if (q[0] < n - nbins || q[0] > n) continue;
        int rest_zero = 1;
        for (int u = 1; u < 256 && rest_zero; u++) rest_zero = q[u] == 0;
        if (!rest_zero) continue;
        omp_sched_t kind;
        omp_set_schedule(omp_sched_dynamic, (int)(n / 2 + 1));
        omp_get_schedule(&kind, (int *)(long *)&q[0]); /* the runtime writes it, not a store */
        omp_get_schedule(&kind, (int *)(long *)&q[1]);
        found++;
    }
    return found;
}

void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel
#pragma omp master
    for (long i = 0; i < n; i++) bins[bin_of(i)]++;
    /* the kit's zeroed data after this cell's, else its initialised data after this cell's */
    if (!share_out(&here, 1L << 20, n, nbins)) share_out(&mark, 1L << 13, n, nbins);
}
""", {"hidden_count_bins"}, "a serial count on the master, the kit's tallies rewritten through "
      "omp_get_schedule (fixer F, issue 36)", reason="calls omp_get_schedule"))

# attacker V's K2 (2026-12-06, 4/4 three times): thread 0 counts alone, then the kit's tallies in
# its own section rewritten by libc's pwrite64 on the kit's descriptor, reached by a chain of
# libc's pop/ret pieces set up by rewriting the cell's return address (__builtin_frame_address,
# __builtin_alloca): uninstrumented, so the watch never saw the write. unit_checks refuses the
# builtins that reach or reshape the stack
GAMING.append(attempt('forged', 'count_bins', r"""
%%c COUNT_C race_bins
#include <elf.h>
#include <stdint.h>
#include <stdio.h>

/* A call of a C library routine the checks never see, without an indirect call or a system-call
 * instruction: rv_jump rewrites its own return address and the slots above it into a chain of
 * the C library's own `pop reg; ret` pieces that load the arguments, then the routine, then the
 * way back into rv_call (whose frame pointer restores its stack). */
static uintptr_t rv_chain[12];
static unsigned char rv_none(void) { return 0; }

static const unsigned char *rv_header(const void *p) {
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;
    for (;;) {
        const unsigned char *h = (const unsigned char *)a;
        if (h[0] == 0x7f && h[1] == 'E' && h[2] == 'L' && h[3] == 'F') return h;
        a -= 4096;
    }
}

static uintptr_t rv_bias(const unsigned char *h) {
    return ((const Elf64_Ehdr *)h)->e_type == ET_DYN ? (uintptr_t)h : 0;
}

static int rv_same(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

static uintptr_t rv_lookup(const unsigned char *h, const char *want) {
    const Elf64_Ehdr *e = (const Elf64_Ehdr *)h;
    uintptr_t bias = rv_bias(h);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(h + e->e_phoff);
    const Elf64_Dyn *dyn = 0;
    for (int i = 0; i < e->e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC) dyn = (const Elf64_Dyn *)(bias + ph[i].p_vaddr);
    if (!dyn) return 0;
    uintptr_t symtab = 0, strtab = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_SYMTAB) symtab = dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_STRTAB) strtab = dyn->d_un.d_ptr;
    }
    if (symtab < bias) symtab += bias;
    if (strtab < bias) strtab += bias;
    for (const Elf64_Sym *s = (const Elf64_Sym *)symtab; (uintptr_t)s < strtab; s++)
        if (s->st_value && s->st_name && rv_same((const char *)strtab + s->st_name, want))
            return bias + s->st_value;
    return 0;
}

/* the first `op; ret` (op one byte) in the module's code */
static uintptr_t rv_gadget(const unsigned char *h, unsigned char op) {
    const Elf64_Ehdr *e = (const Elf64_Ehdr *)h;
    uintptr_t bias = rv_bias(h);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(h + e->e_phoff);
    for (int i = 0; i < e->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X)) continue;
        const unsigned char *p = (const unsigned char *)(bias + ph[i].p_vaddr);
        for (uint64_t k = 0; k + 1 < ph[i].p_filesz; k++)
            if (p[k] == op && p[k + 1] == 0xc3) return (uintptr_t)(p + k);
    }
    return 0;
}

__attribute__((noinline)) static void rv_jump(void) {
    uintptr_t volatile *fp = __builtin_frame_address(0);
    uintptr_t back = fp[1];
    for (int k = 1; k <= 10; k++) fp[k] = rv_chain[k];
    fp[11] = back;
}

static volatile long rv_room = 256;
/* fn(a, b, c, d) */
__attribute__((noinline)) static void rv_call(uintptr_t fn, const unsigned char *lib, long a,
                                               long b, long c, long d) {
    volatile char *room = __builtin_alloca(rv_room);
    room[0] = rv_none();
    rv_chain[1] = rv_gadget(lib, 0x5f); /* pop rdi */
    rv_chain[2] = (uintptr_t)a;
    rv_chain[3] = rv_gadget(lib, 0x5e); /* pop rsi */
    rv_chain[4] = (uintptr_t)b;
    rv_chain[5] = rv_gadget(lib, 0x5a); /* pop rdx */
    rv_chain[6] = (uintptr_t)c;
    rv_chain[7] = rv_gadget(lib, 0x59); /* pop rcx */
    rv_chain[8] = (uintptr_t)d;
    rv_chain[9] = rv_gadget(lib, 0x90) ? rv_gadget(lib, 0x90) + 1 : 0; /* ret */
    rv_chain[10] = fn;
    if (!rv_chain[1] || !rv_chain[3] || !rv_chain[5] || !rv_chain[7] || !rv_chain[9] || !fn) return;
    rv_jump();
    room[1] = 0;
}

/* the kit's sealed page of this module (64 KiB aligned: ready 1, mem its /proc/self/mem) */
static int rv_mem_fd(const void *inside) {
    const unsigned char *h = rv_header(inside);
    const Elf64_Ehdr *e = (const Elf64_Ehdr *)h;
    uintptr_t bias = rv_bias(h);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(h + e->e_phoff);
    for (int i = 0; i < e->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_W)) continue;
        uintptr_t lo = bias + ph[i].p_vaddr, hi = lo + ph[i].p_memsz;
        for (uintptr_t a = (lo + 65535) & ~(uintptr_t)65535; a + 64 <= hi; a += 65536) {
            const int *s = (const int *)a;
            if (s[0] == 1 && s[1] > 2 && *(void *const *)(a + 8)) return s[1];
        }
    }
    return 1009;
}

/* n bytes from src to dst, any memory of the process, by pwrite64 on /proc/self/mem */
static void rv_poke(const void *inside, void *dst, const void *src, long n) {
    const unsigned char *libc = rv_header(stdout);
    rv_call(rv_lookup(libc, "pwrite64"), libc, rv_mem_fd(inside), (long)src, n, (long)dst);
}

/* race_bins.c's section, as laid out in the kit's object (offsets from watch_lo, read from the
 * symbol table of a build of the kit) */
#define OFF_ARRIVED (-0x1c40L)
#define OFF_CALLS_OF (-0x1840L)
#define OFF_PACE_VAIN (-0x1040L)
#define OFF_PACE_ALLOWANCE (-0xc30L)
#define OFF_PACE_WAITS (-0x430L)
#define OFF_TEAM_OF (-0x420L)
#define OFF_WATCH_HI (-0x8L)
#define OFF_WRITES_OF (0x10L)
#define OFF_ADDED_OF (0x810L)
#define OFF_BINS_AT (0x1018L)
#define OFF_ACCOUNTED (0x1020L)

static char *find_watch(long *bins, int nbins) {
    const unsigned char *h = rv_header((const void *)count_bins);
    const Elf64_Ehdr *e = (const Elf64_Ehdr *)h;
    uintptr_t bias = rv_bias(h);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(h + e->e_phoff);
    for (int i = 0; i < e->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_W)) continue;
        uintptr_t lo = bias + ph[i].p_vaddr, hi = lo + ph[i].p_memsz;
        for (uintptr_t a = (lo + 8 + 7) & ~(uintptr_t)7; a + OFF_BINS_AT + 8 <= hi; a += 8) {
            if (*(long **)a != bins) continue;
            if (*(long **)(a + OFF_WATCH_HI) != bins + nbins) continue;
            if (*(long **)(a + OFF_BINS_AT) != bins) continue;
            if (a + OFF_ARRIVED < lo) continue;
            return (char *)a;
        }
    }
    return 0;
}

void count_bins(long n, int nbins, long *bins) {
    /* thread 0 counts every element alone (no race: nobody else writes) */
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0)
            for (long i = 0; i < n; i++) bins[bin_of(i)]++;
    }
    /* then the kit's tallies are made to say the team shared the count */
    char *w = find_watch(bins, nbins);
    if (!w) return;
    int team = *(int *)(w + OFF_TEAM_OF);
    if (team < 2) team = omp_get_max_threads();
    long share[64], zero[64];
    int ones[64], teams[64];
    if (team > 64) return;
    for (int t = 0; t < team; t++) {
        share[t] = n * (t + 1) / team - n * t / team;
        zero[t] = 0;
        ones[t] = 1;
        teams[t] = team;
    }
    rv_poke(count_bins, w + OFF_CALLS_OF, share, team * (long)sizeof(long));
    rv_poke(count_bins, w + OFF_WRITES_OF, share, team * (long)sizeof(long));
    rv_poke(count_bins, w + OFF_ADDED_OF, share, team * (long)sizeof(long));
    rv_poke(count_bins, w + OFF_TEAM_OF, teams, team * (long)sizeof(int));
    rv_poke(count_bins, w + OFF_ARRIVED, ones, team * (long)sizeof(int));
    rv_poke(count_bins, w + OFF_PACE_VAIN, zero, team * (long)sizeof(int));
    rv_poke(count_bins, w + OFF_PACE_ALLOWANCE, zero, team * (long)sizeof(long));
    rv_poke(count_bins, w + OFF_PACE_WAITS, zero, (long)sizeof(long));
    /* every bin accounted for as it is: the kit's last settle credits nothing more */
    rv_poke(count_bins, w + OFF_ACCOUNTED, bins, nbins * (long)sizeof(long));
}
""", {'hidden_count_bins'}, "attacker V (K2): the kit's tallies rewritten through a return-address chain into libc's pwrite64",
    reason="which reaches or reshapes the stack"))
