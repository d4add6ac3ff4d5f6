/* hybridlab.h: the measurement method and result records shared by every kernel.
 *
 * A kernel file includes this header once, before any system header (it defines _GNU_SOURCE),
 * and defines
 *     const char *const hl_kernel_description;
 *     const hl_param hl_kernel_params[];          (ends with HL_END_PARAMS)
 *     int hl_kernel(MPI_Comm comm, hl_ctx *ctx);   (0 on success, hl_fail(...) on error)
 *
 * Built as a shared library (the default) the header adds hl_entry(), which the Python harness
 * calls inside each MPI engine with the engine's communicator. Built with -DHL_PROGRAM it adds
 * main(), which initialises MPI itself and prints the same records as JSON lines on stdout.
 *
 * Every record is one JSON object per line. hl_emit() prefixes the fields that say where it ran:
 * rank, thread, cpu (sched_getcpu) and numa node (getcpu).
 *
 * The method (DESIGN section 5), so a kernel states only what it times:
 *     hl_measure()        EPCC's benchmark(): warm-up, inner repetitions calibrated to a target
 *                         time on which the ranks agree, a discarded pass, N outer samples, and
 *                         the same for an optional reference (test - reference is computed from
 *                         the raw samples in Python, hybridlab.stats)
 *     hl_delay()          EPCC's delay(), with hl_delay_rate() / hl_delay_length() to size it
 *     hl_timers_*()       per-thread phase timers (own cache lines), hl_barrier_phase(),
 *                         hl_emit_timers() for one "timer" record per thread and phase
 *     hl_phase()          ends a timed phase; with hl_timeline_new() also keeps its interval,
 *                         hl_emit_timeline() writes one "timeline" record (start/end) each
 *     hl_param_choice()   one name of a list; hl_param_names(), hl_param_numbers() and
 *                         hl_param_each(): comma lists as parameters
 *     hl_require_level()  fail with a clear message when MPI gave too low a thread level
 *     hl_thread_cpu_now(), hl_sleep_us(), hl_sleep_seconds()
 *
 * Built with trace_mpi=True, hl_mpi_trace.h (included first by the compiler) records every MPI
 * call the kernel makes with its thread, for hybridlab.compliance. A kernel that includes
 * hl_touch.h after this header can trace which thread first touched each page of an array.
 */
#ifndef HYBRIDLAB_H
#define HYBRIDLAB_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- parameters */

typedef struct {
    const char *name;
    const char *value; /* default */
    const char *help;
} hl_param;

#define HL_END_PARAMS {NULL, NULL, NULL}

extern const char *const hl_kernel_description;
extern const hl_param hl_kernel_params[];

/* ------------------------------------------------------------- the call state */

typedef struct {
    int argc;
    char **argv;    /* "name=value" tokens */
    MPI_Comm comm;
    int rank, size;
    char *out;      /* JSON lines, grown as needed */
    size_t len, cap;
    char error[512];
    omp_lock_t lock;
} hl_ctx;

int hl_kernel(MPI_Comm comm, hl_ctx *ctx);

/* Record a failure; the kernel returns the value. */
static inline int hl_fail(hl_ctx *ctx, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
    va_end(ap);
    return -1;
}

/* ------------------------------------------------------------------ placement */

/* The CPU and NUMA node the calling thread runs on right now. */
static inline void hl_where(int *cpu, int *numa) {
    unsigned c = 0, n = 0;
    if (syscall(SYS_getcpu, &c, &n, NULL) != 0) {
        c = (unsigned)sched_getcpu();
        n = 0;
    }
    *cpu = (int)c;
    *numa = (int)n;
}

/* The calling thread's allowed CPUs as a JSON array, e.g. "[0,1]". */
static inline void hl_allowed_cpus(char *buf, size_t cap) {
    cpu_set_t set;
    size_t used = 0;
    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(buf, cap, "[]");
        return;
    }
    used += (size_t)snprintf(buf + used, cap - used, "[");
    int first = 1;
    for (int c = 0; c < CPU_SETSIZE && used + 8 < cap; c++) {
        if (CPU_ISSET(c, &set)) {
            used += (size_t)snprintf(buf + used, cap - used, first ? "%d" : ",%d", c);
            first = 0;
        }
    }
    snprintf(buf + used, cap - used, "]");
}

static inline const char *hl_level_name(int level) {
    switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_MULTIPLE: return "multiple";
    default: return "unknown";
    }
}

/* -------------------------------------------------------------------- records */

static inline void hl_append(hl_ctx *ctx, const char *text, size_t n) {
    if (ctx->len + n + 1 > ctx->cap) {
        size_t cap = ctx->cap ? ctx->cap : 4096;
        while (ctx->len + n + 1 > cap) cap *= 2;
        char *grown = realloc(ctx->out, cap);
        if (!grown) {
            fprintf(stderr, "hybridlab: out of memory for records\n");
            abort();
        }
        ctx->out = grown;
        ctx->cap = cap;
    }
    memcpy(ctx->out + ctx->len, text, n);
    ctx->len += n;
    ctx->out[ctx->len] = '\0';
}

/* Emit one record: `fields` is the inside of a JSON object ("\"phase\":\"halo\",..."), to which
 * rank, thread, cpu and numa are prefixed. Safe to call from any OpenMP thread. */
static inline void hl_emit(hl_ctx *ctx, const char *fields, ...) {
    char body[2048], line[2300];
    int cpu, numa;
    va_list ap;
    va_start(ap, fields);
    vsnprintf(body, sizeof body, fields, ap);
    va_end(ap);
    hl_where(&cpu, &numa);
    int n = snprintf(line, sizeof line, "{\"rank\":%d,\"thread\":%d,\"cpu\":%d,\"numa\":%d%s%s}\n",
                     ctx->rank, omp_get_thread_num(), cpu, numa, body[0] ? "," : "", body);
    if (n >= (int)sizeof line) n = (int)sizeof line - 1;
    omp_set_lock(&ctx->lock);
    hl_append(ctx, line, (size_t)n);
    omp_unset_lock(&ctx->lock);
}

/* Each rank's description of where and how it runs, read by the harness as run metadata. */
static inline void hl_emit_meta(hl_ctx *ctx) {
    char host[256] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", allowed[1024], line[2048];
    int provided = 0, len = 0;
    gethostname(host, sizeof host - 1);
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0'; /* the first line names the library and version */
    for (char *p = lib; *p; p++)
        if (*p == '"' || *p == '\\' || *p == '\t') *p = ' ';
    MPI_Query_thread(&provided);
    hl_allowed_cpus(allowed, sizeof allowed);
    int n = snprintf(line, sizeof line,
                     "{\"meta\":true,\"rank\":%d,\"size\":%d,\"host\":\"%s\",\"pid\":%d,"
                     "\"thread_level\":\"%s\",\"omp_max_threads\":%d,\"allowed_cpus\":%s,"
                     "\"mpi_library\":\"%s\"}\n",
                     ctx->rank, ctx->size, host, (int)getpid(), hl_level_name(provided),
                     omp_get_max_threads(), allowed, lib);
    if (n >= (int)sizeof line) n = (int)sizeof line - 1;
    hl_append(ctx, line, (size_t)n);
}

/* ----------------------------------------------------------- parameter access */

static inline const hl_param *hl_find_param(const char *name, size_t n) {
    for (const hl_param *p = hl_kernel_params; p->name; p++)
        if (strlen(p->name) == n && strncmp(p->name, name, n) == 0) return p;
    return NULL;
}

/* Check that every argument is a known "name=value"; fills ctx->error otherwise. */
static inline int hl_check_args(hl_ctx *ctx) {
    for (int i = 0; i < ctx->argc; i++) {
        const char *eq = strchr(ctx->argv[i], '=');
        if (!eq) return hl_fail(ctx, "argument '%s' is not name=value", ctx->argv[i]);
        if (!hl_find_param(ctx->argv[i], (size_t)(eq - ctx->argv[i]))) {
            char known[400] = "";
            for (const hl_param *p = hl_kernel_params; p->name; p++) {
                strncat(known, known[0] ? ", " : "", sizeof known - strlen(known) - 1);
                strncat(known, p->name, sizeof known - strlen(known) - 1);
            }
            return hl_fail(ctx, "unknown parameter '%.*s' (known: %s)",
                           (int)(eq - ctx->argv[i]), ctx->argv[i], known[0] ? known : "none");
        }
    }
    return 0;
}

static inline const char *hl_param_str(hl_ctx *ctx, const char *name) {
    size_t n = strlen(name);
    for (int i = ctx->argc - 1; i >= 0; i--)
        if (strncmp(ctx->argv[i], name, n) == 0 && ctx->argv[i][n] == '=') return ctx->argv[i] + n + 1;
    const hl_param *p = hl_find_param(name, n);
    return p ? p->value : NULL;
}

/* Parameter `name` read with strtol (integer) or strtod into *lv or *dv; 0, ok=0 and the error
 * if it is missing or malformed. */
static inline int hl_param_parse(hl_ctx *ctx, const char *name, int integer, long *lv, double *dv,
                                 int *ok) {
    const char *s = hl_param_str(ctx, name);
    char *end = NULL;
    errno = 0;
    if (s && integer) *lv = strtol(s, &end, 10);
    if (s && !integer) *dv = strtod(s, &end);
    if (s && !errno && end != s && !*end) return 1;
    hl_fail(ctx, "parameter %s=%s is not %s", name, s ? s : "(missing)",
            integer ? "an integer" : "a number");
    *ok = 0;
    return 0;
}

/* Integer parameter; a malformed value or one below `min` is an error (returns 0 and sets ok=0). */
static inline long hl_param_long(hl_ctx *ctx, const char *name, long min, int *ok) {
    long v = 0;
    if (!hl_param_parse(ctx, name, 1, &v, NULL, ok)) return 0;
    if (v < min) {
        hl_fail(ctx, "parameter %s=%ld must be at least %ld", name, v, min);
        *ok = 0;
    }
    return v;
}

static inline double hl_param_double(hl_ctx *ctx, const char *name, double min, int *ok) {
    double v = 0.0;
    if (!hl_param_parse(ctx, name, 0, NULL, &v, ok)) return 0.0;
    if (v < min) {
        hl_fail(ctx, "parameter %s=%g must be at least %g", name, v, min);
        *ok = 0;
    }
    return v;
}

/* The next item of a comma list, spaces trimmed, empty items skipped: its text (up to cap - 1
 * characters) in `item`, its full length returned; 0 at the end of the list. */
static inline size_t hl_list_next(const char **cursor, char *item, size_t cap) {
    const char *s = *cursor;
    while (*s == ' ' || *s == ',') s++;
    const char *end = s + strcspn(s, ","), *last = end;
    while (last > s && last[-1] == ' ') last--;
    size_t n = (size_t)(last - s);
    *cursor = end;
    if (n > 0) snprintf(item, cap, "%.*s", (int)n, s);
    return n;
}

/* names[0..n) joined as "a, b, c" (for messages). */
static inline void hl_join(char *buf, size_t cap, const char *const *names, int n) {
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        strncat(buf, i ? ", " : "", cap - strlen(buf) - 1);
        strncat(buf, names[i], cap - strlen(buf) - 1);
    }
}

/* The index in `valid` (nvalid names) of parameter `name`'s value; -1 with ctx->error set
 * ("parameter variant=x is not one of a, b") when it is none of them. */
static inline int hl_param_choice(hl_ctx *ctx, const char *name, const char *const *valid,
                                  int nvalid) {
    const char *value = hl_param_str(ctx, name);
    for (int i = 0; i < nvalid; i++)
        if (value && strcmp(value, valid[i]) == 0) return i;
    char list[400];
    hl_join(list, sizeof list, valid, nvalid);
    return hl_fail(ctx, "parameter %s=%s is not one of %s", name, value ? value : "(missing)",
                   list);
}

#define HL_ITEM_MAX 128

/* Reads one item of a list parameter: index, text; 0, or -1 after hl_fail. */
typedef int (*hl_item_fn)(hl_ctx *ctx, const char *param, int index, const char *item,
                          void *state);

/* Calls `each` for every item of the comma-list parameter `name`; returns how many there are
 * (0 for an empty list), or -1 with ctx->error set. */
static inline int hl_param_each(hl_ctx *ctx, const char *name, hl_item_fn each, void *state) {
    const char *cursor = hl_param_str(ctx, name);
    char item[HL_ITEM_MAX];
    int count = 0;
    size_t n;
    if (!cursor) cursor = "";
    while ((n = hl_list_next(&cursor, item, sizeof item)) > 0) {
        if (n >= sizeof item)
            return hl_fail(ctx, "%s: item '%s...' is too long", name, item);
        if (each(ctx, name, count, item, state) != 0) return -1;
        count++;
    }
    return count;
}

typedef struct {
    const char *what;          /* one item, for messages: "construct" */
    const char *const *valid;  /* the names an item may take */
    int nvalid;
    int *out, max_out;
} hl_names_state;

static inline int hl_name_item(hl_ctx *ctx, const char *param, int index, const char *item,
                               void *state) {
    hl_names_state *st = state;
    (void)param;
    for (int v = 0; v < st->nvalid; v++)
        if (strcmp(item, st->valid[v]) == 0) {
            if (index < st->max_out) st->out[index] = v;
            return 0;
        }
    char list[400];
    hl_join(list, sizeof list, st->valid, st->nvalid);
    return hl_fail(ctx, "unknown %s '%s' (valid: %s)", st->what, item, list);
}

/* A comma list of names from `valid` (nvalid of them), `what` naming one in messages ("unknown
 * construct 'x' (valid: a, b)"): the indices of the first max_out in `out`; returns how many the
 * list names (at least 1), or -1 with ctx->error set. */
static inline int hl_param_names(hl_ctx *ctx, const char *name, const char *what,
                                 const char *const *valid, int nvalid, int *out, int max_out) {
    hl_names_state st = {what, valid, nvalid, out, max_out};
    int count = hl_param_each(ctx, name, hl_name_item, &st);
    if (count == 0) return hl_fail(ctx, "parameter %s is empty: name at least one", name);
    return count;
}

typedef struct {
    double *out;
    int max_out;
} hl_numbers_state;

static inline int hl_number_item(hl_ctx *ctx, const char *param, int index, const char *item,
                                 void *state) {
    hl_numbers_state *st = state;
    char *end = NULL;
    errno = 0;
    double v = strtod(item, &end);
    if (errno || end == item || *end || v != v)
        return hl_fail(ctx, "%s: '%s' is not a number", param, item);
    if (index < st->max_out) st->out[index] = v;
    return 0;
}

/* A comma list of numbers: the first max_out in `out`; returns how many the list holds (0 for an
 * empty list), or -1 with ctx->error set ("weights: 'x' is not a number"). */
static inline int hl_param_numbers(hl_ctx *ctx, const char *name, double *out, int max_out) {
    hl_numbers_state st = {out, max_out};
    return hl_param_each(ctx, name, hl_number_item, &st);
}

/* 0 if MPI provides at least `needed` (MPI_THREAD_*); otherwise -1 with the message "<who> and
 * needs MPI_THREAD_<NEEDED>, but MPI provided only '<level>': ask for ...", where `who` (printf
 * style) says what calls MPI how, e.g. "variant %s calls MPI from every thread at once". */
static inline int hl_require_level(hl_ctx *ctx, int needed, const char *who, ...) {
    static const char *const upper[] = {"SINGLE", "FUNNELED", "SERIALIZED", "MULTIPLE"};
    static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided >= needed) return 0;
    const char *name = "UNKNOWN";
    for (int i = 0; i < 4; i++)
        if (levels[i] == needed) name = upper[i];
    char what[256];
    va_list ap;
    va_start(ap, who);
    vsnprintf(what, sizeof what, who, ap);
    va_end(ap);
    return hl_fail(ctx,
                   "%s and needs MPI_THREAD_%s, but MPI provided only '%s': ask for "
                   "thread_level='%s' or higher (--thread-level=%s)",
                   what, name, hl_level_name(provided), hl_level_name(needed),
                   hl_level_name(needed));
}

/* ---------------------------------------------------------- measurement method */

static inline double hl_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs the timed work `inner` times. */
typedef void (*hl_work_fn)(void *arg, long inner);

/* Warm up once, then double the inner repetitions until one call lasts at least `target`
 * seconds (EPCC: about 1 ms). With a communicator, the ranks decide together at every step (the
 * slowest rank's time counts), so work that synchronises ranks is called equally often on all. */
static inline long hl_calibrate(MPI_Comm comm, hl_work_fn work, void *arg, double target) {
    long inner = 1;
    work(arg, 1); /* warm-up, discarded */
    for (;;) {
        double t0 = hl_now();
        work(arg, inner);
        double took = hl_now() - t0, slowest = took;
        if (comm != MPI_COMM_NULL) MPI_Allreduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (slowest >= target || inner >= (1L << 40)) return inner;
        inner *= 2;
    }
}

/* Take `outer` samples of `inner` repetitions; samples[i] is seconds per repetition. */
static inline void hl_sample(hl_work_fn work, void *arg, long inner, int outer, double *samples) {
    for (int i = 0; i < outer; i++) {
        double t0 = hl_now();
        work(arg, inner);
        samples[i] = (hl_now() - t0) / (double)inner;
    }
}

/* Seconds of CPU time the calling thread has used: a thread that is preempted stops counting. */
static inline double hl_thread_cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void hl_nanosleep(struct timespec t) {
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* Sleep (not spin) for `us` microseconds, resumed after signals; nothing for us <= 0. */
static inline void hl_sleep_us(long us) {
    if (us <= 0) return;
    hl_nanosleep((struct timespec){us / 1000000, (us % 1000000) * 1000});
}

/* Sleep for `seconds`; nothing for seconds <= 0. */
static inline void hl_sleep_seconds(double seconds) {
    if (!(seconds > 0.0)) return;
    time_t whole = (time_t)seconds;
    hl_nanosleep((struct timespec){whole, (long)((seconds - (double)whole) * 1e9)});
}

/* EPCC's delay(): a chain of `length` dependent float additions the compiler cannot remove or
 * vectorise (no -ffast-math), with a test that never prints but keeps the result alive. */
static inline void hl_delay(long length) {
    float a = 0.0f;
    for (long i = 0; i < length; i++) a += (float)i;
    if (a < 0.0f) printf("%f\n", a);
}

/* Iterations of hl_delay() per second of the thread's CPU time (so a calibration run that other
 * programs preempt still counts only the time it ran): the best of three runs, doubled until a
 * run lasts at least `min_seconds`. With a communicator, the ranks agree on the fastest rate. */
static inline double hl_delay_rate(MPI_Comm comm, double min_seconds) {
    long n = 1 << 14;
    double best;
    for (;;) {
        best = 1e30;
        for (int trial = 0; trial < 3; trial++) {
            double c0 = hl_thread_cpu_now();
            hl_delay(n);
            double dt = hl_thread_cpu_now() - c0;
            if (dt > 0 && dt < best) best = dt;
        }
        if ((best >= min_seconds && best < 1e30) || n >= (1L << 34)) break;
        n *= 2;
    }
    double rate = (double)n / best, agreed = rate;
    if (comm != MPI_COMM_NULL) MPI_Allreduce(&rate, &agreed, 1, MPI_DOUBLE, MPI_MAX, comm);
    return agreed;
}

/* The hl_delay() length that lasts `seconds` (0 for seconds <= 0, at least 1 otherwise), rated
 * over runs of 2 ms. With a communicator, the ranks agree on the largest length, so every rank
 * does the same work; every rank must call it (it is a collective even for seconds <= 0). */
static inline long hl_delay_length(MPI_Comm comm, double seconds) {
    long length = 0;
    if (seconds > 0) {
        length = (long)(seconds * hl_delay_rate(MPI_COMM_NULL, 2e-3) + 0.5);
        if (length < 1) length = 1;
    }
    long agreed = length;
    if (comm != MPI_COMM_NULL) MPI_Allreduce(&length, &agreed, 1, MPI_LONG, MPI_MAX, comm);
    return agreed;
}

/* How hl_measure() times: EPCC's defaults are a 1 ms target and 20 outer samples. */
typedef struct {
    MPI_Comm comm; /* the ranks that time together (agree on inner, start at a barrier);
                      MPI_COMM_NULL: this rank alone */
    double target; /* seconds one sample must last at least, on the slowest rank */
    int outer;     /* samples */
} hl_method;

static inline hl_method hl_method_default(hl_ctx *ctx) {
    return (hl_method){.comm = ctx->comm, .target = 1e-3, .outer = 20};
}

/* What hl_measure() measured; release with hl_result_free(). */
typedef struct {
    const char *name;
    int outer;
    long inner;           /* repetitions per sample of the test */
    double *test;         /* outer samples, seconds per repetition of the test */
    long reference_inner; /* the same for the reference (0 and NULL without one) */
    double *reference;
} hl_result;

static inline void hl_result_free(hl_result *r) {
    free(r->test);
    free(r->reference);
    r->test = r->reference = NULL;
}

/* One EPCC measurement of `work`: a barrier, warm-up and calibration (hl_calibrate), one more
 * pass discarded (EPCC ignores the first timed pass), a barrier, then the samples. */
static inline long hl_measure_one(const hl_method *m, hl_work_fn work, void *arg,
                                  double *samples) {
    if (m->comm != MPI_COMM_NULL) MPI_Barrier(m->comm);
    long inner = hl_calibrate(m->comm, work, arg, m->target);
    work(arg, inner);
    if (m->comm != MPI_COMM_NULL) MPI_Barrier(m->comm);
    hl_sample(work, arg, inner, m->outer, samples);
    return inner;
}

/* EPCC's benchmark(name, test) and reference(name, refer) in one call: `reference` (optional:
 * NULL) is measured first, then `test`, each calibrated on its own. Both get `arg`. The kernel
 * states only what it times and how it reports: overheads (test - reference, with the spread of
 * both) are computed from the raw samples in Python, never here. Every rank of method->comm must
 * call it; 0, or -1 with ctx->error set (the ranks fail together). */
static inline int hl_measure(hl_ctx *ctx, const char *name, hl_work_fn test,
                             hl_work_fn reference, void *arg, const hl_method *method,
                             hl_result *out) {
    memset(out, 0, sizeof *out);
    out->name = name;
    out->outer = method->outer;
    if (method->outer < 1 || !(method->target > 0.0))
        return hl_fail(ctx, "%s: the method needs at least one sample and a target above 0",
                       name);
    size_t bytes = (size_t)method->outer * sizeof(double);
    out->test = malloc(bytes);
    if (reference) out->reference = malloc(bytes);
    int have = out->test && (!reference || out->reference), everyone = have;
    if (method->comm != MPI_COMM_NULL)
        MPI_Allreduce(&have, &everyone, 1, MPI_INT, MPI_MIN, method->comm);
    if (!everyone) {
        hl_result_free(out);
        return hl_fail(ctx, "%s: no memory for %d samples on some rank", name, method->outer);
    }
    if (reference) out->reference_inner = hl_measure_one(method, reference, arg, out->reference);
    out->inner = hl_measure_one(method, test, arg, out->test);
    return 0;
}

/* --------------------------------------------------------- per-thread phase timers */

#define HL_MAX_PHASES 7

/* One interval a thread spent in a phase (hl_phase): hl_now() seconds. */
typedef struct {
    double start, end;
    long iteration;
    int phase;
} hl_interval;

/* Room for the intervals of one iteration of one thread; hl_timeline_check() reports overflow.
 * (halo2d's busiest thread times 8 intervals an iteration: hybrid3 with one thread.) */
#define HL_TIMELINE_PER_ITERATION 16

/* Aligned to cache lines, so the threads' timers do not share lines. The timeline fields stay
 * zero (nothing recorded) unless hl_timeline_new() gave the thread a buffer. */
typedef struct {
    _Alignas(64) double t[HL_MAX_PHASES]; /* seconds per phase */
    double partial;                       /* the thread's part of a sum (e.g. Jacobi's delta) */
    hl_interval *line;                    /* timeline: the kept intervals, in the order timed */
    long n, cap;                          /* intervals kept; room */
    long iteration;                       /* the iteration being timed (hl_timers_iteration) */
    long keep;                            /* iterations 0..keep-1 are kept */
    long dropped;                         /* intervals that found the buffer full */
} hl_timers;

/* The phases of a halo-exchange code, as Stathopoulos 2010, section 4.6 breaks its time down: stencil and
 * copy, halo exchange, the reduction of the convergence test, waiting at barriers, and the whole
 * iteration loop. halo2d, halo3d and the labs' own halo kernels report these. */
enum { HL_JACOBI, HL_HALO, HL_REDUCTION, HL_OTHER, HL_TOTAL, HL_HALO_PHASES };
static const char *const hl_halo_phase_names[HL_HALO_PHASES] = {"jacobi", "halo", "reduction",
                                                                "other", "total"};

/* Zeroed timers for `nthreads` threads (free with free()), or NULL. */
static inline hl_timers *hl_timers_new(int nthreads) {
    size_t bytes = (size_t)(nthreads > 0 ? nthreads : 1) * sizeof(hl_timers);
    hl_timers *acc = aligned_alloc(_Alignof(hl_timers), bytes);
    if (acc) memset(acc, 0, bytes);
    return acc;
}

/* The threads' partials summed in thread order: the same answer whichever thread adds. */
static inline double hl_timers_sum(const hl_timers *acc, int nthreads) {
    double s = 0.0;
    for (int t = 0; t < nthreads; t++) s += acc[t].partial;
    return s;
}

/* One record per thread and phase: "record":"timer","phase":NAME,"seconds":S, then `fields`
 * (printf-style, the same for every record). Opens its own team of `nthreads`, so each record
 * says which thread (and CPU) it belongs to; call it outside a parallel region. */
static inline void hl_emit_timers(hl_ctx *ctx, const hl_timers *acc, int nthreads,
                                  const char *const *phases, int nphases, const char *fields,
                                  ...) {
    char tail[1536];
    va_list ap;
    va_start(ap, fields);
    vsnprintf(tail, sizeof tail, fields, ap);
    va_end(ap);
    if (nphases > HL_MAX_PHASES) nphases = HL_MAX_PHASES;
#pragma omp parallel num_threads(nthreads)
    {
        const hl_timers *me = &acc[omp_get_thread_num()];
        for (int p = 0; p < nphases; p++)
            hl_emit(ctx, "\"record\":\"timer\",\"phase\":\"%s\",\"seconds\":%.9g%s%s", phases[p],
                    me->t[p], tail[0] ? "," : "", tail);
    }
}

/* --------------------------------------------------------- per-thread phase timeline */

/* The totals say how long each thread spent in each phase; a timeline also says when. Time a
 * phase with hl_phase() (a barrier with hl_barrier_phase()): it adds the interval's length to
 * the phase total, so totals mean the same with or without a timeline, and when the thread has
 * a timeline (hl_timeline_new) it keeps the interval too, for the first `keep` iterations. A
 * thread's intervals follow one another and never overlap, so each thread is one track of a
 * trace (hybridlab.traces.chrome_trace); the intervals of a phase add up to its total when every
 * iteration is kept. */

#define HL_TIMELINE_MAX_ITERATIONS 10000

/* The two parameters hl_param_timeline reads, for a kernel's hl_kernel_params table. */
#define HL_TIMELINE_PARAMS                                                                        \
    {"timeline", "0",                                                                             \
     "1: also one timeline record (phase, iteration, start, end) per interval a thread timed"},   \
    {"timeline_iterations", "20",                                                                 \
     "timeline=1: keep the intervals of the first this many iterations (at most 10000)"}

/* The kernel's parameters timeline (0 or 1) and timeline_iterations (1 to
 * HL_TIMELINE_MAX_ITERATIONS): how many of `iterations` a timeline keeps, 0 without a timeline,
 * or -1 with ctx->error set. */
static inline long hl_param_timeline(hl_ctx *ctx, long iterations) {
    int ok = 1;
    long on = hl_param_long(ctx, "timeline", 0, &ok);
    if (!ok) return -1;
    if (on > 1) return hl_fail(ctx, "parameter timeline=%ld must be 0 or 1", on);
    long keep = hl_param_long(ctx, "timeline_iterations", 1, &ok);
    if (!ok) return -1;
    if (keep > HL_TIMELINE_MAX_ITERATIONS)
        return hl_fail(ctx, "parameter timeline_iterations=%ld is above %d", keep,
                       HL_TIMELINE_MAX_ITERATIONS);
    if (!on) return 0;
    return keep < iterations ? keep : iterations;
}

/* Marks `iteration` as the one the threads acc[0..nthreads) time next. */
static inline void hl_timers_iteration(hl_timers *acc, int nthreads, long iteration) {
    for (int t = 0; t < nthreads; t++) acc[t].iteration = iteration;
}

/* Ends a phase the thread began at t0: adds hl_now() - t0 to me->t[phase] and keeps the
 * interval when the thread records this iteration. Returns the end (where what follows starts). */
static inline double hl_phase(hl_timers *me, int phase, double t0) {
    double t1 = hl_now();
    me->t[phase] += t1 - t0;
    if (me->line && me->iteration < me->keep) {
        if (me->n < me->cap)
            me->line[me->n++] = (hl_interval){t0, t1, me->iteration, phase};
        else
            me->dropped++;
    }
    return t1;
}

/* An omp barrier whose wait is the thread's `phase` (the halo kernels: HL_OTHER). */
static inline void hl_barrier_phase(hl_timers *me, int phase) {
    double t0 = hl_now();
#pragma omp barrier
    hl_phase(me, phase, t0);
}

/* Gives every thread of acc[0..nthreads) a timeline keeping the intervals of iterations
 * 0..keep-1 (none for keep <= 0). 0, or -1 when out of memory; hl_timers_free releases it. */
static inline int hl_timeline_new(hl_timers *acc, int nthreads, long keep) {
    if (keep <= 0) return 0;
    for (int t = 0; t < nthreads; t++) {
        acc[t].cap = keep * HL_TIMELINE_PER_ITERATION;
        acc[t].keep = keep;
        acc[t].line = malloc((size_t)acc[t].cap * sizeof(hl_interval));
        if (!acc[t].line) return -1;
    }
    return 0;
}

/* Frees timers from hl_timers_new and their timelines (NULL is fine). */
static inline void hl_timers_free(hl_timers *acc, int nthreads) {
    for (int t = 0; acc && t < nthreads; t++) free(acc[t].line);
    free(acc);
}

/* Collective over ctx->comm: 0 when every thread of every rank kept its intervals in order
 * without overflow; otherwise -1 with ctx->error set on every rank (a kernel bug). */
static inline int hl_timeline_check(hl_ctx *ctx, const hl_timers *acc, int nthreads) {
    long faults[2] = {0, 0}, all[2] = {0, 0}; /* dropped, out of order */
    for (int t = 0; t < nthreads; t++) {
        faults[0] += acc[t].dropped;
        for (long i = 0; i < acc[t].n; i++) {
            const hl_interval *v = &acc[t].line[i];
            if (v->end < v->start || (i > 0 && v->start < acc[t].line[i - 1].end)) faults[1]++;
        }
    }
    MPI_Allreduce(faults, all, 2, MPI_LONG, MPI_MAX, ctx->comm);
    if (all[0] || all[1])
        return hl_fail(ctx, "timeline: %ld intervals found a full buffer and %ld overlap the one "
                            "before (a kernel bug)", all[0], all[1]);
    return 0;
}

/* One record per kept interval: "record":"timeline","phase":NAME,"iteration":I,"start":S,
 * "end":E,"seconds":E-S with S and E in seconds since `origin` (the hl_now() each rank took
 * right after a common MPI_Barrier, as the imbalance kernel does), then `fields` (printf-style,
 * the same for every record). Opens its own team of `nthreads` like hl_emit_timers; call it
 * outside a parallel region. */
static inline void hl_emit_timeline(hl_ctx *ctx, const hl_timers *acc, int nthreads,
                                    const char *const *phases, int nphases, double origin,
                                    const char *fields, ...) {
    char tail[1536];
    va_list ap;
    va_start(ap, fields);
    vsnprintf(tail, sizeof tail, fields, ap);
    va_end(ap);
#pragma omp parallel num_threads(nthreads)
    {
        const hl_timers *me = &acc[omp_get_thread_num()];
        for (long i = 0; i < me->n; i++) {
            const hl_interval *v = &me->line[i];
            if (v->phase < 0 || v->phase >= nphases) continue;
            hl_emit(ctx,
                    "\"record\":\"timeline\",\"phase\":\"%s\",\"iteration\":%ld,\"start\":%.9f,"
                    "\"end\":%.9f,\"seconds\":%.9g%s%s",
                    phases[v->phase], v->iteration, v->start - origin, v->end - origin,
                    v->end - v->start, tail[0] ? "," : "", tail);
        }
    }
}

/* ------------------------------------------------------------ crash reports */

/* A rank that dies on a signal says which rank it was before it goes, so the harness can name
 * it whatever the launcher reports. Only async-signal-safe calls in the handler. */
static volatile sig_atomic_t hl_crash_rank = -1;
static char hl_crash_file[512]; /* HL_CRASH_FILE: also written there (engines capture stderr) */
static const int hl_fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define HL_NFATAL (int)(sizeof hl_fatal_signals / sizeof hl_fatal_signals[0])

static inline size_t hl_put_int(char *buf, long v) {
    char digits[24];
    size_t n = 0, len = 0;
    if (v < 0) { buf[len++] = '-'; v = -v; }
    do { digits[n++] = (char)('0' + v % 10); v /= 10; } while (v > 0);
    while (n > 0) buf[len++] = digits[--n];
    return len;
}

static inline void hl_on_fatal(int sig) {
    char msg[96] = "hybridlab: rank ";
    size_t len = strlen(msg);
    len += hl_put_int(msg + len, hl_crash_rank);
    memcpy(msg + len, " died on signal ", 16);
    len += 16;
    len += hl_put_int(msg + len, sig);
    msg[len++] = '\n';
    if (write(STDERR_FILENO, msg, len) < 0) { /* nothing more can be done */ }
    if (hl_crash_file[0]) {
        int fd = open(hl_crash_file, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd >= 0) {
            if (write(fd, msg, len) < 0) { /* as above */ }
            close(fd);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static inline void hl_catch_fatal(int rank, struct sigaction saved[HL_NFATAL]) {
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = hl_on_fatal;
    sigemptyset(&act.sa_mask);
    const char *file = getenv("HL_CRASH_FILE");
    snprintf(hl_crash_file, sizeof hl_crash_file, "%s", file ? file : "");
    hl_crash_rank = rank;
    for (int i = 0; i < HL_NFATAL; i++) sigaction(hl_fatal_signals[i], &act, &saved[i]);
}

static inline void hl_release_fatal(const struct sigaction saved[HL_NFATAL]) {
    for (int i = 0; i < HL_NFATAL; i++) sigaction(hl_fatal_signals[i], &saved[i], NULL);
}

/* --------------------------------------------------------------- entry points */

/* Set by a helper header that holds resources for the kernel (hl_touch.h): run by hl_run when
 * hl_kernel returns, before the crash handlers are released. */
static void (*hl_on_kernel_end)(void);

#ifdef HL_TRACE_MPI /* build(..., trace_mpi=True): hl_mpi_trace.h records the kernel's MPI calls */
static void hl_trace_reset(void);
static void hl_trace_emit(hl_ctx *ctx);
#endif

static inline int hl_run(MPI_Comm comm, int argc, char **argv, hl_ctx *ctx) {
    memset(ctx, 0, sizeof *ctx);
    ctx->argc = argc;
    ctx->argv = argv;
    ctx->comm = comm;
    omp_init_lock(&ctx->lock);
    MPI_Comm_rank(comm, &ctx->rank);
    MPI_Comm_size(comm, &ctx->size);
    struct sigaction saved[HL_NFATAL];
    hl_catch_fatal(ctx->rank, saved);
    int rc = hl_check_args(ctx);
    if (rc == 0) {
        hl_emit_meta(ctx);
#ifdef HL_TRACE_MPI
        hl_trace_reset();
#endif
        rc = hl_kernel(comm, ctx);
        if (rc != 0 && !ctx->error[0]) hl_fail(ctx, "kernel returned %d", rc);
#ifdef HL_TRACE_MPI
        hl_trace_emit(ctx);
#endif
    }
    if (hl_on_kernel_end) {
        hl_on_kernel_end();
        hl_on_kernel_end = NULL;
    }
    hl_release_fatal(saved);
    omp_destroy_lock(&ctx->lock);
    return rc;
}

#ifndef HL_PROGRAM

/* In-process call from an engine: `fcomm` comes from mpi4py's comm.py2f(). On return *out holds
 * the records (free with hl_free) and, if the call failed, *error the message. */
int hl_entry(MPI_Fint fcomm, int argc, char **argv, char **out, size_t *len, char *error,
             size_t error_cap) {
    hl_ctx ctx;
    int rc = hl_run(MPI_Comm_f2c(fcomm), argc, argv, &ctx);
    *out = ctx.out;
    *len = ctx.len;
    snprintf(error, error_cap, "%s", ctx.error);
    return rc;
}

void hl_free(char *p) { free(p); }

const char *hl_description(void) { return hl_kernel_description; }

/* The parameter table as JSON lines {"name","default","help"}, for the harness. */
const char *hl_params_json(void) {
    static char buf[8192];
    size_t used = 0;
    buf[0] = '\0';
    for (const hl_param *p = hl_kernel_params; p->name && used < sizeof buf; p++)
        used += (size_t)snprintf(buf + used, sizeof buf - used,
                                 "{\"name\":\"%s\",\"default\":\"%s\",\"help\":\"%s\"}\n",
                                 p->name, p->value, p->help);
    return buf;
}

#else /* HL_PROGRAM */

static inline void hl_usage(const char *prog) {
    printf("%s: %s\n\nusage: mpiexec -n RANKS %s [name=value ...]\n\nparameters:\n", prog,
           hl_kernel_description, prog);
    for (const hl_param *p = hl_kernel_params; p->name; p++)
        printf("  %-14s %s (default %s)\n", p->name, p->help, p->value);
    printf("\n  --thread-level=single|funneled|serialized|multiple  asked of MPI_Init_thread"
           " (default funneled)\n\nenvironment: OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND\n"
           "output: one JSON record per line on stdout (rank 0 prints all ranks')\n");
}

/* The thread level named on the command line (--thread-level=NAME, default funneled). */
static inline int hl_level_from_args(int *argc, char **argv) {
    const char *flag = "--thread-level=";
    const char *name = "funneled";
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        if (strncmp(argv[i], flag, strlen(flag)) == 0)
            name = argv[i] + strlen(flag);
        else
            argv[kept++] = argv[i];
    }
    *argc = kept;
    static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, hl_level_name(levels[i])) == 0) return levels[i];
    fprintf(stderr, "--thread-level=%s is not one of single, funneled, serialized, multiple\n",
            name);
    exit(2);
}

/* Gather every rank's records on rank 0, which prints them in rank order. */
static inline void hl_print_all(hl_ctx *ctx) {
    int mine = (int)ctx->len, *counts = NULL, *displs = NULL, total = 0;
    char *all = NULL;
    if (ctx->rank == 0) {
        counts = calloc((size_t)ctx->size, sizeof *counts);
        displs = calloc((size_t)ctx->size, sizeof *displs);
    }
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, ctx->comm);
    if (ctx->rank == 0) {
        for (int r = 0; r < ctx->size; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc((size_t)total + 1);
    }
    MPI_Gatherv(ctx->out ? ctx->out : "", mine, MPI_CHAR, all, counts, displs, MPI_CHAR, 0,
                ctx->comm);
    if (ctx->rank == 0) {
        fwrite(all, 1, (size_t)total, stdout);
        fflush(stdout);
        free(all);
        free(counts);
        free(displs);
    }
}

int main(int argc, char **argv) {
    int provided;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            hl_usage(argv[0]);
            return 0;
        }
    int requested = hl_level_from_args(&argc, argv);
    MPI_Init_thread(&argc, &argv, requested, &provided);
    hl_ctx ctx;
    int rc = hl_run(MPI_COMM_WORLD, argc - 1, argv + 1, &ctx);
    int worst = 0;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc != 0) fprintf(stderr, "rank %d: %s\n", ctx.rank, ctx.error);
    if (worst == 0) hl_print_all(&ctx);
    free(ctx.out);
    MPI_Finalize();
    return worst == 0 ? 0 : 1;
}

#endif /* HL_PROGRAM */
#endif /* HYBRIDLAB_H */
