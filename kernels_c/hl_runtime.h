/* hl_runtime.h: what runs around a kernel, included by hybridlab.h; no kernel calls it.
 *
 * hl_run() checks the "name=value" arguments against the kernel's table, emits each rank's
 * "meta" record (host, pid, thread level, allowed CPUs, MPI library), calls hl_kernel() with
 * crash handlers installed (a rank that dies on a signal names itself on stderr and in
 * HL_CRASH_FILE), and, built with trace_mpi=True, emits the MPI calls the tracer recorded and
 * frames every record line with the run's key (kernels_c/hl_trace.c).
 * Every kernel is compiled once, to one object linked both as a shared library and as a program.
 * The library's hl_entry() is what the Python harness calls inside each MPI engine with the
 * engine's communicator (its parameter table the program's --help lists); the program's main()
 * initialises MPI itself and prints every rank's records as JSON lines on stdout (rank 0 prints
 * them in rank order).
 */
#ifndef HL_RUNTIME_H
#define HL_RUNTIME_H

#ifndef HYBRIDLAB_H
#error "hl_runtime.h is part of hybridlab.h: include hybridlab.h"
#endif

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

/* The records' buffers are allocated with the C library's own realloc, malloc and free (the
 * parentheses keep out function-like macros): SimGrid's smpicc turns malloc into a shared
 * malloc that folds large blocks onto pages all ranks share and that messages are never copied
 * into, so rank 0's gathered records would arrive as zeros (hybridlab.simulate). */
#ifdef HL_TRACE_MPI
/* the kit's tracer object (kernels_c/hl_trace.c): the records' integrity and framing, the trace */
void hl_trace_note(const char *text, size_t n); /* the kit appended these bytes to ctx->out */
void hl_trace_frame(hl_ctx *ctx);               /* check ctx->out and frame its lines */
void hl_trace_print(const char *text, size_t n); /* the framed records, to the guarded stdout */
void hl_trace_reset(void);
void hl_trace_emit(hl_ctx *ctx);
int hl_trace_init_thread(int *argc, char ***argv, int required, int *provided);
#endif

static inline void hl_append(hl_ctx *ctx, const char *text, size_t n) {
    if (ctx->len + n + 1 > ctx->cap) {
        size_t cap = ctx->cap ? ctx->cap : 4096;
        while (ctx->len + n + 1 > cap) cap *= 2;
        char *grown = (realloc)(ctx->out, cap);
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
#ifdef HL_TRACE_MPI
    hl_trace_note(text, n);
#endif
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
    hl_query_thread(&provided);
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

/* ---------------------------------------------------------------- arguments */

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

/* hl_param_names' reader of one item (an hl_item_fn): the item's index among the valid names. */
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

/* hl_param_numbers' reader of one item (an hl_item_fn): a number. */
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

#if !defined(HL_STUDENT_TU) && !defined(HL_WHOLE_PROGRAM) && !defined(HL_TRACE_OBJECT)
/* student C (its own translation unit) is linked with a kernel's, a whole program
 * (HL_WHOLE_PROGRAM, hl_mpi_trace.h) has its own main, and the tracer object (hl_trace.c) is
 * linked beside a kernel: no second runtime, entry point or main */
/* ------------------------------------------------------------ crash reports */

/* A rank that dies on a signal says which rank it was before it goes, so the harness can name
 * it whatever the launcher reports. Only async-signal-safe calls in the handler. */
static volatile sig_atomic_t hl_crash_rank = -1;
static char hl_crash_file[512]; /* HL_CRASH_FILE: also written there (engines capture stderr) */
/* where the report goes: stderr, or the real one while a kernel points stderr elsewhere
 * (offload_halo.c reads the offload runtime's report there) */
static volatile int hl_crash_fd = STDERR_FILENO;
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
    if (write(hl_crash_fd, msg, len) < 0) { /* nothing more can be done */ }
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
#ifdef HL_TRACE_MPI /* built with trace_mpi=True: the tracer object records the MPI calls */
    hl_trace_reset();
#endif
    int rc = hl_check_args(ctx);
    if (rc == 0) {
        hl_emit_meta(ctx);
        hl_keep(ctx, NULL, 0, ""); /* no values kept from an earlier call (hybridlab.h) */
        hl_sealed_reset(ctx);      /* the sealed evidence zeroed, its page sealed (hybridlab.h) */
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
#ifdef HL_TRACE_MPI
    hl_trace_frame(ctx); /* each line framed with the run's key; the harness reads only those */
#endif
    hl_release_fatal(saved);
    omp_destroy_lock(&ctx->lock);
    return rc;
}

/* ------------------------------------------------------------------ the library's entry */

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

void hl_free(char *p) { (free)(p); }

/* ------------------------------------------------------------------ the program's main */

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
        all = (malloc)((size_t)total + 1);
    }
    MPI_Gatherv(ctx->out ? ctx->out : "", mine, MPI_CHAR, all, counts, displs, MPI_CHAR, 0,
                ctx->comm);
    if (ctx->rank == 0) {
#ifdef HL_TRACE_MPI /* through the tracer's own copy of stdout, which no cell can repoint */
        hl_trace_print(all, (size_t)total);
#else
        fwrite(all, 1, (size_t)total, stdout);
        fflush(stdout);
#endif
        (free)(all);
        free(counts);
        free(displs);
    }
}

int main(int argc, char **argv) {
    int provided;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            /* every rank sees --help; only the first prints it (MPI is not started yet, so the
             * launcher's rank variable says which rank this is) */
            const char *vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"};
            for (size_t v = 0; v < sizeof vars / sizeof *vars; v++) {
                const char *r = getenv(vars[v]);
                if (r && strcmp(r, "0") != 0) return 0;
            }
            hl_usage(argv[0]);
            return 0;
        }
    int requested = hl_level_from_args(&argc, argv);
#ifdef _OPENMP
    /* OpenMP's threads start before MPI does. With MPICH's UCX netmod, a thread pool libgomp
     * makes after MPI_Init_thread (UCX's malloc hooks are in place by then) made every later
     * fork and join 60-100 ns dearer on a 2-core Xeon VM, in EPCC's own syncbench as in the kit's
     * (benchmarks/anchors.md); a pool made first costs nothing later. */
#pragma omp parallel
    {
        volatile int started = 1; /* a region GCC keeps: an empty one it removes */
        (void)started;
    }
#endif
#ifdef HL_TRACE_MPI /* MPI at MULTIPLE, the code shown `requested`: a broken level is judged */
    hl_trace_init_thread(&argc, &argv, requested, &provided);
#else
    MPI_Init_thread(&argc, &argv, requested, &provided);
#endif
    hl_ctx ctx;
    int rc = hl_run(MPI_COMM_WORLD, argc - 1, argv + 1, &ctx);
    int worst = 0;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc != 0) fprintf(stderr, "rank %d: %s\n", ctx.rank, ctx.error);
    if (worst == 0) hl_print_all(&ctx);
    (free)(ctx.out);
    MPI_Finalize();
    return worst == 0 ? 0 : 1;
}

#endif /* HL_STUDENT_TU, HL_WHOLE_PROGRAM */

#endif /* HL_RUNTIME_H */
