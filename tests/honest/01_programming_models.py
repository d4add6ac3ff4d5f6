"""Right answers to lab 01 written another way: the barriers added by a loop over the source's
lines, or around `omp master` spelled as masked is (the test keeps only barriers); the exchange
with blocking MPI_Recv after an MPI_Issend polled by MPI_Test, or the level checked by hand; the
levels named through a dictionary or regular expressions; the answers and the ratios with
plain Python or numpy."""

from honest import right

HONEST = [
    # (a) fixed_source
    right("fixed_source", """
_lines = racy_source.split("\\n")
_out = []
for _line in _lines:
    if _line.strip().startswith("#pragma omp masked"):
        _out.append("#pragma omp barrier")  # (1) all have read before the master writes
    if _line.strip().startswith("/* second loop"):
        _out.append("#pragma omp barrier")  # (2) the master has written before all read
    _out.append(_line)
fixed_source = "\\n".join(_out)
""", why="the barriers inserted by a loop over the source's lines"),
    right("fixed_source", """
import re

fixed_source = re.sub(r"(\\n)(#pragma omp masked\\n)", r"\\1#pragma omp barrier\\n\\2", racy_source, count=1)
fixed_source = re.sub(r"(\\n)([ \\t]*/\\* second loop)", r"\\1    #pragma omp barrier\\n\\2", fixed_source, count=1)
""", why="regular expressions, the second barrier indented"),
    # (b) exchange_block
    right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    int provided;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_SERIALIZED)
        return hl_fail(ctx, "exchange_block needs MPI_THREAD_SERIALIZED (every thread calls MPI, one at a time)");
    return 0;
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    const int me = omp_get_thread_num();
    MPI_Request out, in;
    int sent = 0, arrived = 0;
#pragma omp critical(mpi_calls)
    {
        MPI_Issend(send, n, MPI_INT, right, 100 + me, comm, &out);
        MPI_Irecv(recv, n, MPI_INT, left, 100 + me, comm, &in);
    }
    while (!(sent && arrived)) {
#pragma omp critical(mpi_calls)
        {
            if (!arrived) MPI_Test(&in, &arrived, MPI_STATUS_IGNORE);
            if (!sent) MPI_Test(&out, &sent, MPI_STATUS_IGNORE);
        }
        if (!(sent && arrived)) hl_sleep_us(10);
    }
}
""", why="the level checked by hand with MPI_Query_thread; each request tested on its own"),
    right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "each thread exchanges its own block");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int me = omp_get_thread_num(), half = n / 2, done = 0;
    int *staged = malloc((size_t)(n - half) * sizeof *staged);
    MPI_Request req[3];
#pragma omp critical(mpi_calls)
    {
        MPI_Irecv(recv, half, MPI_INT, left, me, comm, &req[0]);          /* its own block, */
        MPI_Irecv(staged, n - half, MPI_INT, left, 1000 + me, comm, &req[1]);  /* a staged half */
        MPI_Issend(send, half, MPI_INT, right, me, comm, &req[2]);
    }
    MPI_Request rest;
#pragma omp critical(mpi_calls)
    MPI_Issend(send + half, n - half, MPI_INT, right, 1000 + me, comm, &rest);
    while (!done) {
        int a = 0, b = 0;
#pragma omp critical(mpi_calls)
        {
            MPI_Testall(3, req, &a, MPI_STATUSES_IGNORE);
            MPI_Test(&rest, &b, MPI_STATUS_IGNORE);
        }
        done = a && b;
        if (!done) hl_sleep_us(10);
    }
    for (int i = half; i < n; i++) recv[i] = staged[i - half];
    free(staged);
}
""", why="each block in two messages, the second received into a buffer of the thread's own and copied"),
    right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
static omp_lock_t mpi_lock; /* one thread inside MPI at a time */

int check_thread_level(hl_ctx *ctx) {
    omp_init_lock(&mpi_lock); /* once, on the main thread, before the parallel region */
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "one thread at a time calls MPI, every thread its own block");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    const int tag = omp_get_thread_num();
    MPI_Request r[2];
    omp_set_lock(&mpi_lock);
    MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &r[1]);
    MPI_Issend(send, n, MPI_INT, right, tag, comm, &r[0]);
    omp_unset_lock(&mpi_lock);
    for (int flag = 0; !flag;) {
        omp_set_lock(&mpi_lock);
        MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
        omp_unset_lock(&mpi_lock);
        if (!flag) hl_sleep_us(25);
    }
}
""", why="an OpenMP lock instead of a named critical section"),
    # (c) require_level
    right("require_level", """
_RANK = {name: i for i, name in enumerate(THREAD_LEVELS)}


def require_level(required, provided):
    def canonical(level):
        key = str(level).strip().lower()
        if key.startswith("mpi_thread_"):
            key = key[len("mpi_thread_"):]
        if key not in _RANK:
            raise ValueError(f"{level!r} is not a thread level; valid: {', '.join(THREAD_LEVELS)}")
        return key

    need, have = canonical(required), canonical(provided)
    if _RANK[have] < _RANK[need]:
        raise RuntimeError(f"required {need}, provided only {have}")
    return have
""", why="a dictionary of ranks, the prefix cut by startswith"),
    right("require_level", """
import re


def require_level(required, provided):
    names = []
    for level in (required, provided):
        m = re.fullmatch(r"(?:mpi_thread_)?(single|funneled|serialized|multiple)", str(level), re.I)
        if m is None:
            raise ValueError(f"unknown thread level {level!r}: use one of {', '.join(THREAD_LEVELS)}")
        names.append(m.group(1).lower())
    need, have = names
    if THREAD_LEVELS.index(have) < THREAD_LEVELS.index(need):
        raise RuntimeError(f"{have} provided, {need} required")
    return have
""", why="one regular expression, case-insensitive"),
    # (d) level_answers
    right("answers", """
def level_answers(table):
    first = table.drop_duplicates("requested").set_index("requested")["provided"]
    provided = {lv: str(first[lv]) for lv in THREAD_LEVELS}
    enough = all(THREAD_LEVELS.index(provided[lv]) >= THREAD_LEVELS.index(lv) for lv in THREAD_LEVELS)
    mains = table[table["is_thread_main"] == True]["thread"].astype(int).unique()  # noqa: E712
    return {"provided": provided, "always_at_least_requested": bool(enough),
            "main_threads": sorted(int(t) for t in mains)}
""", why="drop_duplicates per request, the main threads by unique"),
    right("answers", """
def level_answers(table):
    provided, mains = {}, set()
    for row in table.itertuples():
        provided.setdefault(row.requested, row.provided)
        if bool(row.is_thread_main):
            mains.add(int(row.thread))
    order = {lv: i for i, lv in enumerate(THREAD_LEVELS)}
    return {"provided": {lv: provided[lv] for lv in THREAD_LEVELS},
            "always_at_least_requested": min(order[provided[lv]] - order[lv] for lv in THREAD_LEVELS) >= 0,
            "main_threads": sorted(mains)}
""", why="rows walked one by one, the order as a dictionary"),
    # (f) level_cost
    right("multiple_cost", """
import statistics


def level_cost(runs):
    def barrier_median(run):
        s = slowest_rank_samples(run)
        return statistics.median(s[s["construct"] == "mpi_barrier"]["seconds"].tolist())

    def ping_median(run):
        return statistics.median(run.records["seconds"].tolist())

    return {"barrier": barrier_median(runs["multiple"]["sync"]) / barrier_median(runs["funneled"]["sync"]),
            "latency": ping_median(runs["multiple"]["ping"]) / ping_median(runs["funneled"]["ping"])}
""", why="the statistics module's medians"),
    right("multiple_cost", """
import numpy as np


def level_cost(runs):
    out = {}
    for key, kind in (("barrier", "sync"), ("latency", "ping")):
        med = {}
        for level in ("funneled", "multiple"):
            run = runs[level][kind]
            if kind == "sync":
                s = slowest_rank_samples(run)
                values = s.loc[s["construct"] == "mpi_barrier", "seconds"].to_numpy()
            else:
                values = run.records["seconds"].to_numpy()
            med[level] = float(np.percentile(values, 50))
        out[key] = med["multiple"] / med["funneled"]
    return out
""", why="numpy's 50th percentile in one loop over both ratios"),
    # a fresh attacker's right answer (R01right, 2026-12-05): one regex, a nested helper, a dict
    # of ranks (lost 3/3 to a first form of the run-time-code rule: Python 3.11 reads a module's
    # method, once run, as LOAD_ATTR; kept here so it stays right)
    right("require_level", 'import re as _re\n\n_RANK = {name: rank for rank, name in enumerate(("single", "funneled", "serialized", "multiple"))}\n\n\ndef require_level(required: str, provided: str) -> str:\n    """The provided level (lower case, no prefix) if it is at least the required one;\n    RuntimeError naming both if it is lower; ValueError for a name that is not a level."""\n    def plain(level):\n        m = _re.fullmatch(r"(?:mpi_thread_)?(single|funneled|serialized|multiple)", str(level), _re.I)\n        if m is None:\n            raise ValueError(f"{level!r} is not an MPI thread level; valid names: "\n                             + ", ".join(_RANK) + " (optionally MPI_THREAD_...)")\n        return m.group(1).lower()\n    need, got = plain(required), plain(provided)\n    if _RANK[got] < _RANK[need]:\n        raise RuntimeError(f"MPI provided {got!r} but this program needs {need!r}")\n    return got\n',
          why="a regular expression in a nested helper and a rank dict"),
    # a fresh attacker's (T, 2026-12-05): an IntEnum of a cell, looked inside by the test's walk
    right("require_level", r'''
import enum


class Level(enum.IntEnum):
    SINGLE = 0
    FUNNELED = 1
    SERIALIZED = 2
    MULTIPLE = 3


class LevelTooLow(RuntimeError):
    """MPI gave less than the program needs."""


def _parse(text):
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a thread level; valid: {', '.join(l.name.lower() for l in Level)}")
    key = text.upper()
    if key.startswith("MPI_THREAD_"):
        key = key[len("MPI_THREAD_"):]
    try:
        return Level[key]
    except KeyError:
        raise ValueError(f"{text!r} is not a thread level; valid: "
                         f"{', '.join(l.name.lower() for l in Level)} (optionally MPI_THREAD_...)") from None


def require_level(required: str, provided: str) -> str:
    need, got = _parse(required), _parse(provided)
    if got < need:
        raise LevelTooLow(f"MPI provided {got.name.lower()!r} but this program needs {need.name.lower()!r}")
    return got.name.lower()
''', why="the levels as an IntEnum of the cell, its own exception class"),
    right("require_level", r'''
# right answer, another way: one regular expression recognises every spelling; the order is the
# position in THREAD_LEVELS
import re

_LEVEL = re.compile(r"(?:mpi_thread_)?(single|funneled|serialized|multiple)", re.IGNORECASE)


def require_level(required: str, provided: str) -> str:
    """The provided level if at least the required one."""
    names = []
    for given in (required, provided):
        found = _LEVEL.fullmatch(given) if isinstance(given, str) else None
        if found is None:
            raise ValueError(f"{given!r} is not a thread level; valid: "
                             + ", ".join(THREAD_LEVELS) + " (optionally with MPI_THREAD_)")
        names.append(found.group(1).lower())
    need, got = names
    if THREAD_LEVELS.index(got) < THREAD_LEVELS.index(need):
        raise RuntimeError(f"MPI provided {got!r} but this program needs {need!r}")
    return got
''', why="fresh attacker (u01_right_regex): one re.fullmatch for every spelling, the order from THREAD_LEVELS"),
    right("require_level", r'''
# right answer, another way: a rank table built from the four names (both spellings, casefolded),
# one exception class that is a RuntimeError, and match/case on the comparison
_RANK = {}
for _i, _name in enumerate(("single", "funneled", "serialized", "multiple")):
    _RANK[_name] = _RANK["mpi_thread_" + _name] = (_i, _name)


class InsufficientThreadLevel(RuntimeError):
    pass


def require_level(required, provided):
    def rank(level):
        try:
            return _RANK[level.casefold()]
        except (KeyError, AttributeError):
            raise ValueError(f"not an MPI thread level: {level!r}; the levels are single, "
                             "funneled, serialized and multiple") from None
    (need, need_name), (got, got_name) = rank(required), rank(provided)
    match got >= need:
        case True:
            return got_name
        case False:
            raise InsufficientThreadLevel(
                f"MPI provided {got_name!r} but this program needs {need_name!r}")
''', why="fresh attacker (u01_right_match): a casefold lookup table, a RuntimeError subclass, a match statement"),
]

# A fresh attacker W (2026-12-06): an IntEnum orders the levels, a level too low raises a subclass of
# RuntimeError (the kinds are judged as classes since W's name-spoofing attempts: a subclass counts)
HONEST.append(right("require_level", '''
from enum import IntEnum as _IntEnum
class _Level(_IntEnum):
    SINGLE = 0
    FUNNELED = 1
    SERIALIZED = 2
    MULTIPLE = 3
class LevelTooLow(RuntimeError):
    pass
def _parse(name):
    try:
        key = name.strip().upper()
        if key.startswith("MPI_THREAD_"):
            key = key[len("MPI_THREAD_"):]
        return _Level[key]
    except (KeyError, AttributeError):
        raise ValueError(f"{name!r} is not a thread level; valid: " + ", ".join(l.name.lower() for l in _Level)) from None
def require_level(required: str, provided: str) -> str:
    # legit c_enum: an IntEnum gives the order; a RuntimeError subclass for a level too low
    need, got = _parse(required), _parse(provided)
    if got < need:
        raise LevelTooLow(f"MPI provided {got.name.lower()!r} but this program needs {need.name.lower()!r}")
    return got.name.lower()
''', why="fresh attacker (01c_legit_intenum): IntEnum order, a RuntimeError subclass for a level too low"))

# attacker T's R01_issend (2026-12-06, full points twice)
HONEST.append(right('exchange_block', r"""
%%c EXCHANGE_C thread_ring
#include <omp.h>
/* asks MPI itself which level it runs at */
int check_thread_level(hl_ctx *ctx) {
    int provided;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_SERIALIZED)
        return hl_fail(ctx, "exchange_block calls MPI from every thread, one at a time: it needs "
                            "MPI_THREAD_SERIALIZED, MPI provided level %d", provided);
    return 0;
}
/* one lock round every MPI call; the tag is the thread number, so the blocks of one ring
 * position cannot meet another thread's receive; the lock is never held while waiting */
static omp_lock_t mpi_lock;
static int lock_ready = 0;
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
#pragma omp critical(init_lock)
    if (!lock_ready) { omp_init_lock(&mpi_lock); lock_ready = 1; }
    MPI_Request r[2];
    int tag = omp_get_thread_num(), done = 0;
    omp_set_lock(&mpi_lock);
    MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &r[0]);
    MPI_Issend(send, n, MPI_INT, right, tag, comm, &r[1]);
    omp_unset_lock(&mpi_lock);
    while (!done) {
        omp_set_lock(&mpi_lock);
        MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        omp_unset_lock(&mpi_lock);
        if (!done) hl_sleep_us(20);
    }
}
""", why='MPI_Query_thread in check_thread_level, an omp_lock_t round each MPI call, Issend tagged by thread'))

# attack K1's fix (2026-12-07): the judge reads what each thread's receives held as they
# completed; messages told apart another way than by tags keep their points
HONEST.append(right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
/* one communicator per thread (duplicated once), the same tag 0 on every one */
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread exchanges its own block");
}

static MPI_Comm per_thread[64];
static int made = 0;

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num();
#pragma omp single
    if (!made) {
        for (int u = 0; u < omp_get_num_threads(); u++) MPI_Comm_dup(comm, &per_thread[u]);
        made = 1;
    }
    MPI_Request req[2];
#pragma omp critical(mpi)
    {
        MPI_Irecv(recv, n, MPI_INT, left, 0, per_thread[t], &req[0]);
        MPI_Issend(send, n, MPI_INT, right, 0, per_thread[t], &req[1]);
    }
    for (int done = 0;;) {
#pragma omp critical(mpi)
        MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        if (done) break;
        hl_sleep_us(20);
    }
}
""", why="one communicator per thread (MPI_Comm_dup in an omp single), tag 0 on each"))
HONEST.append(right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
/* the same tag for every thread, the threads exchanging one after another in thread order on
 * every rank: MPI's non-overtaking order matches thread t's message with thread t's receive */
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread exchanges its own block");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), team = omp_get_num_threads();
    for (int u = 0; u < team; u++) {
        if (u == t) {
            MPI_Request req[2];
            MPI_Irecv(recv, n, MPI_INT, left, 0, comm, &req[0]);
            MPI_Issend(send, n, MPI_INT, right, 0, comm, &req[1]);
            for (int done = 0;;) {
                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
                if (done) break;
                hl_sleep_us(20);
            }
        }
#pragma omp barrier
    }
}
""", why="one tag for all, the threads exchanging in thread order on every rank, a barrier between"))

# fresh attacker A4's r1 (2026-12-07, 0/4 twice: MPI_Mrecv was not counted as a receive)
HONEST.append(right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
/* R1 (right answer, another way): each thread posts its synchronous send, then looks for its
 * own message with MPI_Improbe (its thread number as the tag) and receives exactly that message
 * with MPI_Mrecv; one thread inside MPI at a time (a named critical), pausing between polls. */
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED,
                            "exchange_block: every thread sends and receives its own block");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    const int tag = omp_get_thread_num();
    MPI_Request sreq;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    int found = 0, sent = 0;
#pragma omp critical(ring_mpi)
    MPI_Issend(send, n, MPI_INT, right, tag, comm, &sreq);
    while (!found) {
#pragma omp critical(ring_mpi)
        MPI_Improbe(left, tag, comm, &found, &msg, &st);
        if (!found) hl_sleep_us(20);
    }
#pragma omp critical(ring_mpi)
    MPI_Mrecv(recv, n, MPI_INT, &msg, MPI_STATUS_IGNORE);
    while (!sent) {
#pragma omp critical(ring_mpi)
        MPI_Test(&sreq, &sent, MPI_STATUS_IGNORE);
        if (!sent) hl_sleep_us(20);
    }
}
""", why="each thread's own message found by MPI_Improbe (its thread number as the tag) and received by MPI_Mrecv"))

# fresh attacker A7's right answers (2026-12-07, 0/4 twice each): a persistent synchronous send
# was not traced, and receives started by MPI_Start were not counted
HONEST.append(right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread, one at a time");
}

/* right answer, unlike the obvious: persistent requests, made once per thread (a synchronous
 * send MPI_Ssend_init and a receive MPI_Recv_init, the thread number as the tag) and started
 * in every exchange; completed by MPI_Testall with a pause between tests */
#define MAX_THREADS 256
static MPI_Request persistent[MAX_THREADS][2];
static const int *made_for[MAX_THREADS];

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num();
    MPI_Request *r = persistent[t];
    int done = 0;
#pragma omp critical(mpi)
    {
        if (made_for[t] != send) {
            if (made_for[t]) {
                MPI_Request_free(&r[0]);
                MPI_Request_free(&r[1]);
            }
            MPI_Recv_init(recv, n, MPI_INT, left, t, comm, &r[0]);
            MPI_Ssend_init(send, n, MPI_INT, right, t, comm, &r[1]);
            made_for[t] = send;
        }
        MPI_Startall(2, r);
    }
    while (!done) {
#pragma omp critical(mpi)
        MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
}
""", why="persistent requests per thread (MPI_Ssend_init, MPI_Recv_init) started by MPI_Startall in every exchange"))
HONEST.append(right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread, one at a time");
}

/* right answer, unlike the obvious: each thread's receive is a persistent request (MPI_Recv_init
 * once, the thread number as the tag) started in every exchange, beside a synchronous MPI_Issend;
 * both completed by MPI_Testall with a pause between tests */
#define MAX_THREADS 256
static MPI_Request receive[MAX_THREADS];
static int *made_for[MAX_THREADS];

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num();
    MPI_Request r[2];
    int done = 0;
#pragma omp critical(mpi)
    {
        if (made_for[t] != recv) {
            if (made_for[t]) MPI_Request_free(&receive[t]);
            MPI_Recv_init(recv, n, MPI_INT, left, t, comm, &receive[t]);
            made_for[t] = recv;
        }
        MPI_Start(&receive[t]);
        MPI_Issend(send, n, MPI_INT, right, t, comm, &r[1]);
    }
    r[0] = receive[t];
    while (!done) {
#pragma omp critical(mpi)
        MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
}
""", why="a persistent receive per thread (MPI_Recv_init) started by MPI_Start in every exchange, beside MPI_Issend"))
# a failed try of a lock another thread holds is a wait (thread_ring.c): A14's r3 lost 0/4 before
HONEST.append(right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
static omp_lock_t mpi_lock;
static int lock_made;

int check_thread_level(hl_ctx *ctx) {
    if (!lock_made) {
        omp_init_lock(&mpi_lock);
        lock_made = 1;
    }
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI, one at a time");
}

static void take(void) {
    while (!omp_test_lock(&mpi_lock)) {
    }
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int tag = omp_get_thread_num(), flag = 0;
    MPI_Request req[2];
    take();
    MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &req[0]);
    MPI_Issend(send, n, MPI_INT, right, tag, comm, &req[1]);
    omp_unset_lock(&mpi_lock);
    while (!flag) {
        take();
        MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
        omp_unset_lock(&mpi_lock);
        if (!flag) hl_sleep_us(20);
    }
}
""", why="attacker A14's right answer r3: an OpenMP lock taken by spinning on omp_test_lock around every MPI call"))
HONEST.append(right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI, one at a time");
}
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int tag = omp_get_thread_num(), flag = 0;
    MPI_Request req[2];
    while (pthread_mutex_trylock(&m) != 0) {
    }
    MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &req[0]);
    MPI_Issend(send, n, MPI_INT, right, tag, comm, &req[1]);
    pthread_mutex_unlock(&m);
    while (!flag) {
        if (pthread_mutex_trylock(&m) == 0) {
            MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
            pthread_mutex_unlock(&m);
        }
        if (!flag) hl_sleep_us(20);
    }
}
""", why='a POSIX mutex taken by spinning on pthread_mutex_trylock, the tests made only when the trylock succeeds'))
HONEST.append(right("exchange_block", r"""
%%c EXCHANGE_C thread_ring
static omp_nest_lock_t l;
static int made;
int check_thread_level(hl_ctx *ctx) {
    if (!made) { omp_init_nest_lock(&l); made = 1; }
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI, one at a time");
}
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int tag = omp_get_thread_num(), flag = 0;
    MPI_Request req[2];
    while (!omp_test_nest_lock(&l)) {
    }
    MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &req[0]);
    MPI_Issend(send, n, MPI_INT, right, tag, comm, &req[1]);
    omp_unset_nest_lock(&l);
    while (!flag) {
        while (!omp_test_nest_lock(&l)) {
        }
        MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
        omp_unset_nest_lock(&l);
        if (!flag) hl_sleep_us(20);
    }
}
""", why='an OpenMP nest lock taken by spinning on omp_test_nest_lock around every MPI call'))
