/* hybridlab.h: what a kernel is written against - its parameters, its records and the method
 * that times it. Read this file to write a kernel; the machinery that runs one (hl_runtime.h)
 * and the halo kernels' phases (hl_halo.h) live in their own headers.
 *
 * A kernel file includes this header once, before any system header (it defines _GNU_SOURCE),
 * and defines
 *     const char *const hl_kernel_description;
 *     const hl_param hl_kernel_params[];          (ends with HL_END_PARAMS)
 *     int hl_kernel(MPI_Comm comm, hl_ctx *ctx);   (0 on success, hl_fail(...) on error)
 * Built once and linked twice: a shared library the harness calls inside each MPI engine, and a
 * program for mpiexec (hl_runtime.h). Either way every record is one JSON object per
 * line, to which hl_emit() prefixes where it ran: rank, thread, cpu and numa node.
 *
 * Parameters   hl_param_long(), hl_param_double(), hl_param_str(), hl_param_choice() (one name
 *              of a list), hl_param_names(), hl_param_numbers(), hl_param_each() (comma lists),
 *              hl_param_schedule() (the OpenMP schedule of schedule(runtime) loops),
 *              hl_require_level() (fail clearly when MPI gave too low a thread level)
 * Records      hl_emit(), hl_fail()
 * The method (EPCC's common.c; the book's How the kit measures), one clock (hl_now,
 * CLOCK_MONOTONIC), so a kernel states only what it times:
 *     hl_measure()        EPCC's benchmark(): warm-up, inner repetitions calibrated to a target
 *                         time on which the ranks agree (hl_calibrate), a discarded pass, N
 *                         outer samples, and the same for an optional reference (test -
 *                         reference is computed from the raw samples in Python, hybridlab.runs.stats)
 *     hl_start_together(), hl_slowest_since()
 *                         time one step on the slowest rank: the ranks leave a barrier, each
 *                         times its part, the longest counts
 *     hl_delay()          EPCC's delay(), with hl_delay_rate() / hl_delay_length() to size it
 *     hl_timers_*()       per-thread phase timers (own cache lines), hl_phase(),
 *                         hl_barrier_phase(), hl_emit_timers() for one "timer" record per thread
 *                         and phase; with hl_timeline_new() hl_phase() also keeps each interval
 *                         and hl_emit_timeline() writes one "timeline" record (start/end) each
 *     hl_thread_cpu_now(), hl_sleep_us(), hl_sleep_seconds()
 *     hl_alloc_pages()    message buffers on page boundaries, as the OSU benchmarks allocate them
 *
 * Built with trace_mpi=True, hl_mpi_trace.h (included first by the compiler) records every MPI
 * call the kernel makes with its thread, for hybridlab.runs.compliance. A kernel that includes
 * hl_touch.h after this header can trace which thread first touched each page of an array;
 * hl_nodes.h gives the node-aware exercises their (real or made-up) nodes.
 */
#ifndef HYBRIDLAB_H
#define HYBRIDLAB_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* In a student's unit (HL_STUDENT_TU) every function the kit's inline helpers are handed to call
 * (hl_measure's work, hl_param_each's reader, ...) must be one of the cell's own: the kit moves
 * the cell object's code into the section hl_cell_text (hybridlab.kernels.build), whose bounds
 * the linker provides. An address made by arithmetic (a library function's neighbour, a real MPI
 * entry point) stops the run here, before the call. Elsewhere (the kit's kernels) a no-op. */
#ifdef HL_STUDENT_TU
extern const char __start_hl_cell_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_hl_cell_text[] __attribute__((weak, visibility("hidden")));
static inline void hl_own_code(const void *fn, const char *helper) {
    const char *p = (const char *)fn;
    if (!(__start_hl_cell_text && p >= __start_hl_cell_text && p < __stop_hl_cell_text)) {
        fprintf(stderr, "hybridlab: %s was handed a function that is not the cell's own: the "
                        "kit's helpers call the cell's own functions only\n", helper);
        fflush(stderr);
        __builtin_trap();
    }
}
#define HL_OWN_CODE(fn, helper) hl_own_code((const void *)(fn), helper)
#else
#define HL_OWN_CODE(fn, helper) ((void)0)
#endif

/* The thread level the code was shown. A traced kit unit asks the tracer (MPI runs at MULTIPLE
 * under it, kernels_c/hl_trace.c); a student's unit and a whole program reach it through their
 * traced MPI_Query_thread; an untraced kernel asks MPI. */
#if defined(HL_TRACE_MPI) && !defined(HL_STUDENT_TU) && !defined(HL_WHOLE_PROGRAM)
int hl_trace_query_thread(int *level);
#define hl_query_thread hl_trace_query_thread
#else
#define hl_query_thread MPI_Query_thread
#endif

/* MPI-4 partitioned communication (MPI_Psend_init, MPI_Pready, ...): MPI 4.0 and later, and Open
 * MPI 5, which has the calls while its mpi.h still says 3.1 (-DHL_NO_PARTITIONED: built as for a
 * library without them, to try that path) */
#if (MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)) &&            \
    !defined(HL_NO_PARTITIONED)
#define HL_HAVE_PARTITIONED 1
#endif

/* ------------------------------------------------------------ what a kernel defines */

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

#define HL_ITEM_MAX 128 /* longest item of a comma-list parameter, with its '\0' */

/* Reads one item of a list parameter: index, text; 0, or -1 after hl_fail. */
typedef int (*hl_item_fn)(hl_ctx *ctx, const char *param, int index, const char *item,
                          void *state);

/* ------------------------------------------- values a student's code must leave alone */

/* A student's function (a C cell) runs on the kit's own stack, below the kernel that calls it:
 * code that scans up from one of its locals reaches the kernel's frame - its locals, and the
 * registers the cell's own frames saved for it - so a value the kernel reads after the call
 * returns (a loop's chunk, a thread count, a size, an array's address) may not be the one the
 * run was asked for. A fresh attacker (R, 2026-12-06) set touch_schedule's compute-loop chunk to
 * the blocks its own first touch had used, and the kit's loop followed its initialisation.
 *
 * So a kernel keeps the values it judges with across such a call: hl_keep() (the master thread,
 * outside a parallel region, before the call) copies up to HL_KEEP_MAX of them, and the run's
 * ctx, into pages the kit seals read-only (a cell may not call mprotect:
 * hybridlab.kernels.unit_checks), and hl_kept_check() after each call (any thread; reads only,
 * no system call: cheap in a timed loop) compares them with the kernel's own and, when one
 * differs, stops the run on this rank - "hybridlab: rank 0: your code changed the kit's stack:
 * chunk was 1 when init_arrays was called and 12 after it returned" on stderr, then _exit(1), so
 * that no other rank waits for it in a collective (the launcher ends them; the harness reports
 * the message). The macros name the values by their expressions:
 *     HL_KEEP(ctx, chunk, rows, (long)a);
 *     init_arrays(...);
 *     HL_KEPT_CHECK("init_arrays", chunk, rows, (long)a);
 * One set at a time per kernel unit (a new hl_keep replaces it; hl_run clears it before each
 * kernel call, and a check with nothing kept in the run checks nothing). Not in a student's unit. */
#if !defined(HL_STUDENT_TU) && !defined(HL_WHOLE_PROGRAM) && !defined(HL_TRACE_OBJECT)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#define HL_KEEP_MAX 16
#define HL_KEEP_BYTES 65536 /* a multiple of any page size: the kept values' own pages */
static union {
    struct {
        hl_ctx *ctx; /* the run's: where a stop's message goes */
        int n;
        long values[HL_KEEP_MAX];
        char names[1024];
    } s;
    char pad[HL_KEEP_BYTES];
} hl_kept __attribute__((aligned(HL_KEEP_BYTES), unused));

/* Keeps ctx, values[0..n) (n <= HL_KEEP_MAX) and their names (a comma list: the macro's text). */
static inline __attribute__((unused)) void hl_keep(hl_ctx *ctx, const long *values, int n,
                                                  const char *names) {
    if (n > HL_KEEP_MAX) n = HL_KEEP_MAX;
    mprotect(&hl_kept, sizeof hl_kept, PROT_READ | PROT_WRITE);
    hl_kept.s.ctx = ctx;
    hl_kept.s.n = n;
    if (n > 0) memcpy(hl_kept.s.values, values, (size_t)n * sizeof *values);
    snprintf(hl_kept.s.names, sizeof hl_kept.s.names, "%s", names);
    mprotect(&hl_kept, sizeof hl_kept, PROT_READ);
}

/* Stops the run: the kept ctx's error and stderr say "your code changed the kit's stack: <what>
 * was <before> when <call> was called and <after> after it returned", then _exit(1), as the
 * kit's tracer stops a run it cannot go on with. Also for a thread's own value the kernel can
 * derive again after the call from what the cell cannot reach (its OpenMP thread number, kept
 * values). */
static inline __attribute__((unused, noreturn)) void hl_kept_stop(const char *call,
                                                                 const char *what, long before,
                                                                 long after) {
    hl_ctx *ctx = *(hl_ctx *const volatile *)&hl_kept.s.ctx;
    hl_fail(ctx,
            "your code changed the kit's stack: %s was %ld when %s was called and %ld after it "
            "returned (the kernel's own values are not the cell's to write: a function changes "
            "only what its parameters point to)",
            what, before, call, after);
    char text[700];
    int len = snprintf(text, sizeof text, "hybridlab: rank %d: %s\n", ctx->rank, ctx->error);
    fflush(stdout);
    if (len >= (int)sizeof text) len = (int)sizeof text - 1;
    if (len > 0 && write(STDERR_FILENO, text, (size_t)len) < 0) { /* nothing more to say */
    }
    _exit(1);
}

/* Returns when values[0..n) are the kept ones; otherwise stops the run (hl_kept_stop) naming the
 * first that changed. */
static inline __attribute__((unused)) void hl_kept_check(const char *call, const long *values,
                                                        int n) {
    const volatile long *kept = hl_kept.s.values;
    int have = *(const volatile int *)&hl_kept.s.n;
    if (have == 0) return; /* nothing kept in this run (hl_run clears the set before a kernel) */
    if (n > HL_KEEP_MAX) n = HL_KEEP_MAX;
    int i = 0;
    while (i < n && n == have && kept[i] == values[i]) i++;
    if (i == n && n == have) return;
    if (n != have) hl_kept_stop(call, "the number of kept values (a kernel bug)", have, n);
    const char *name = hl_kept.s.names; /* the i-th of the comma list */
    for (int k = 0; k < i && name; k++) {
        name = strchr(name, ',');
        if (name) name++;
    }
    char what[64] = "a value";
    if (name) {
        while (*name == ' ') name++;
        size_t len = strcspn(name, ",");
        if (len >= sizeof what) len = sizeof what - 1;
        memcpy(what, name, len);
        what[len] = '\0';
    }
    hl_kept_stop(call, what, kept[i], values[i]);
}

#define HL_KEEP(ctx, ...)                                                                         \
    hl_keep(ctx, (const long[]){__VA_ARGS__},                                                     \
            (int)(sizeof((const long[]){__VA_ARGS__}) / sizeof(long)), #__VA_ARGS__)
#define HL_KEPT_CHECK(call, ...)                                                                  \
    hl_kept_check(call, (const long[]){__VA_ARGS__},                                              \
                  (int)(sizeof((const long[]){__VA_ARGS__}) / sizeof(long)))

/* Sealed evidence: what the kit counts or keeps WHILE a student's calls run (a grid's
 * stencil_rows counters, hl_grid2d.h) lives in pages that stay read-only from the first kernel
 * call on, so code that scans memory from a cell (its stack, pointers it is handed) cannot
 * rewrite it: the kit's own writes go through /proc/self/mem, opened before any student code
 * (the kernel writes a read-only private page for it, as a debugger does; the page never becomes
 * writable to another thread), and only where /proc/self/mem cannot be written through a brief
 * mprotect window. Its descriptor and the run's ctx are kept in the sealed page itself. The
 * descriptor is the process's one, at HL_SEALED_FD (every kit library an engine loads shares it),
 * and a seccomp filter refuses (EPERM) every call on that number but the kit's pwrite64: a cell
 * that points stdout's FILE at it (fflush: lseek, then write) writes nothing. The page is
 * mseal'd (Linux 6.10+): no munmap, mremap, mprotect or discarding madvise of it, which a forged
 * chunk handed to free or realloc would make. A kernel without seccomp keeps no descriptor (the
 * mprotect windows). A write that does not land stops the run (hl_sealed_stop). hl_run zeroes
 * the kernel's part (hl_sealed_reset) before each kernel call. A kernel's evidence is one struct:
 *     const grid2d_evidence *ev = HL_SEALED(grid2d_evidence);
 *     hl_sealed_add(&ev->nested_rows, 1);   (any thread: a lock, one pwrite of 8 bytes)
 *     hl_sealed_put(&ev->grid, &g, sizeof g);
 * Reads are plain loads (volatile). One kernel unit's evidence at a time. Not in a student's
 * unit. */
#define HL_SEALED_PAGE_BYTES 65536 /* a multiple of any page size: the evidence's own pages */
#define HL_SEALED_DATA 32768 /* (shm_halo.c's run: about 17 KB) */
static union {
    struct {
        int ready;  /* 1 once the page is sealed and `mem` chosen */
        int mem;    /* /proc/self/mem, read-write; -1: mprotect windows */
        hl_ctx *ctx;
        long nonce; /* the last write's proof (hl_sealed_open) */
        long data[HL_SEALED_DATA / sizeof(long)];
    } s;
    char pad[HL_SEALED_PAGE_BYTES];
} hl_sealed __attribute__((aligned(HL_SEALED_PAGE_BYTES), unused));

/* (each kernel's evidence struct: _Static_assert(sizeof(type) <= HL_SEALED_DATA, ...) beside it) */
#define HL_SEALED(type) ((const type *)hl_sealed.s.data)

static inline __attribute__((unused, noreturn)) void hl_sealed_stop(const char *what) {
    hl_ctx *ctx = *(hl_ctx *const volatile *)&hl_sealed.s.ctx;
    char text[700];
    int len;
    if (ctx) {
        hl_fail(ctx, "the kit could not keep its evidence sealed (%s): the run stops", what);
        len = snprintf(text, sizeof text, "hybridlab: rank %d: %s\n", ctx->rank, ctx->error);
    } else {
        len = snprintf(text, sizeof text, "hybridlab: the kit could not keep its evidence sealed "
                                          "(%s): the run stops\n", what);
    }
    fflush(stdout);
    if (len >= (int)sizeof text) len = (int)sizeof text - 1;
    if (len > 0 && write(STDERR_FILENO, text, (size_t)len) < 0) { /* nothing more to say */
    }
    _exit(1);
}

/* Writes n bytes at dst (inside hl_sealed) from src, and checks that they landed. */
static inline __attribute__((unused)) void hl_sealed_put(const void *dst, const void *src,
                                                        size_t n) {
    const char *d = (const char *)dst, *base = (const char *)&hl_sealed;
    if (d < base || d + n > base + sizeof hl_sealed) hl_sealed_stop("a write outside the page");
    int mem = *(const volatile int *)&hl_sealed.s.mem;
    if (*(const volatile int *)&hl_sealed.s.ready && mem >= 0) {
        if (pwrite(mem, src, n, (off_t)(uintptr_t)dst) != (ssize_t)n)
            hl_sealed_stop("a write through /proc/self/mem failed");
    } else {
        if (mprotect(&hl_sealed, sizeof hl_sealed, PROT_READ | PROT_WRITE) != 0)
            hl_sealed_stop("mprotect failed");
        memcpy((void *)(uintptr_t)dst, src, n);
        mprotect(&hl_sealed, sizeof hl_sealed, PROT_READ);
    }
    __asm__ volatile("" : : : "memory");
    if (memcmp((const void *)(uintptr_t)dst, src, n) != 0)
        hl_sealed_stop("a write did not land");
}

/* Adds inc to the sealed counter at dst (any thread, one at a time). */
static inline __attribute__((unused)) void hl_sealed_add(const long *dst, long inc) {
#pragma omp critical(hl_sealed_lock)
    {
        long v = *(const volatile long *)dst + inc;
        hl_sealed_put(dst, &v, sizeof v);
    }
}

/* Sets one field of a kernel's sealed evidence (evidence: the kernel's HL_SEALED(type) object):
 * HL_SEALED_SET(run, sweeps, n). */
#define HL_SEALED_SET(evidence, field, value)                                                     \
    do {                                                                                          \
        __typeof__((evidence).field) set_ = (value);                                              \
        hl_sealed_put(&(evidence).field, &set_, sizeof set_);                                     \
    } while (0)

static inline __attribute__((unused)) long hl_sealed_get(const long *src) {
    return *(const volatile long *)src;
}

/* The process's descriptor of /proc/self/mem: high, so that a program the process starts (whose
 * calls on that number the filter refuses too) rarely holds it. */
#define HL_SEALED_FD 1009
#ifdef SYS_mseal
#define HL_SYS_MSEAL SYS_mseal
#else
#define HL_SYS_MSEAL 462 /* (x86_64 and aarch64 alike) */
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ /* an argument's low 32 bits: an fd's */
#define HL_ARG_LO(i) (offsetof(struct seccomp_data, args[i]))
#else
#define HL_ARG_LO(i) (offsetof(struct seccomp_data, args[i]) + 4)
#endif
#if defined(__x86_64__)
#define HL_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define HL_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#define HL_REFUSE BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
/* (the call's number in A) call with HL_SEALED_FD as argument i: refused; A is the number
 * again after */
#define HL_REFUSE_ON_FD(call, i)                                                                  \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (call), 0, 4),                                            \
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, HL_ARG_LO(i)),                                         \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HL_SEALED_FD, 0, 1), HL_REFUSE,                       \
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define HL_REFUSE_CALL(call) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (call), 0, 1), HL_REFUSE

/* Installs, for every thread of the process and for good, the filter that leaves HL_SEALED_FD
 * to pwrite64 alone: its reads, writes, seeks, copies (sendfile, splice, tee, copy_file_range),
 * duplicates (dup*, fcntl, pidfd_getfd), close, ioctl, mmap, truncation and syncs fail with
 * EPERM, as do io_uring_setup and io_setup (their operations name a descriptor where no filter
 * sees it), calls of another architecture and x32 calls. 0 when it is in place. */
static inline __attribute__((unused)) int hl_sealed_guard(void) {
#ifdef HL_AUDIT_ARCH
    static const struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HL_AUDIT_ARCH, 1, 0),
        HL_REFUSE,
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __x86_64__
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000 /* __X32_SYSCALL_BIT */, 0, 1),
        HL_REFUSE,
#endif
        HL_REFUSE_CALL(SYS_io_uring_setup),
        HL_REFUSE_CALL(SYS_io_setup),
        HL_REFUSE_ON_FD(SYS_write, 0),
        HL_REFUSE_ON_FD(SYS_writev, 0),
        HL_REFUSE_ON_FD(SYS_pwritev, 0),
        HL_REFUSE_ON_FD(SYS_pwritev2, 0),
        HL_REFUSE_ON_FD(SYS_lseek, 0),
        HL_REFUSE_ON_FD(SYS_read, 0),
        HL_REFUSE_ON_FD(SYS_readv, 0),
        HL_REFUSE_ON_FD(SYS_pread64, 0),
        HL_REFUSE_ON_FD(SYS_preadv, 0),
        HL_REFUSE_ON_FD(SYS_preadv2, 0),
        HL_REFUSE_ON_FD(SYS_sendfile, 0),
        HL_REFUSE_ON_FD(SYS_sendfile, 1),
        HL_REFUSE_ON_FD(SYS_splice, 0),
        HL_REFUSE_ON_FD(SYS_splice, 2),
        HL_REFUSE_ON_FD(SYS_tee, 0),
        HL_REFUSE_ON_FD(SYS_tee, 1),
        HL_REFUSE_ON_FD(SYS_copy_file_range, 0),
        HL_REFUSE_ON_FD(SYS_copy_file_range, 2),
        HL_REFUSE_ON_FD(SYS_dup, 0),
#ifdef SYS_dup2
        HL_REFUSE_ON_FD(SYS_dup2, 0),
        HL_REFUSE_ON_FD(SYS_dup2, 1),
#endif
        HL_REFUSE_ON_FD(SYS_dup3, 0),
        HL_REFUSE_ON_FD(SYS_dup3, 1),
        HL_REFUSE_ON_FD(SYS_fcntl, 0),
        HL_REFUSE_ON_FD(SYS_pidfd_getfd, 1),
        HL_REFUSE_ON_FD(SYS_close, 0),
        HL_REFUSE_ON_FD(SYS_ioctl, 0),
        HL_REFUSE_ON_FD(SYS_mmap, 4),
        HL_REFUSE_ON_FD(SYS_ftruncate, 0),
        HL_REFUSE_ON_FD(SYS_fallocate, 0),
        HL_REFUSE_ON_FD(SYS_fsync, 0),
        HL_REFUSE_ON_FD(SYS_fdatasync, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof code / sizeof *code),
                              (struct sock_filter *)(uintptr_t)code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0
               ? 0
               : -1;
#else
    return -1;
#endif
}

/* Whether fd is the guarded descriptor: one the filter refuses a seek on. */
static inline __attribute__((unused)) int hl_sealed_guarded(int fd) {
    return lseek(fd, 0, SEEK_CUR) < 0 && errno == EPERM;
}

/* The process's guarded /proc/self/mem (HL_SEALED_FD): opened and guarded by the first kit
 * library that asks, the same for the others; -1 where it cannot be (no writable
 * /proc/self/mem, no seccomp, the number taken). */
static inline __attribute__((unused)) int hl_sealed_descriptor(void) {
    if (hl_sealed_guarded(HL_SEALED_FD)) return HL_SEALED_FD;
    int fresh = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
    if (fresh < 0) return -1;
    int fd = fcntl(fresh, F_DUPFD_CLOEXEC, HL_SEALED_FD);
    close(fresh);
    if (fd == HL_SEALED_FD && hl_sealed_guard() == 0 && hl_sealed_guarded(fd)) return fd;
    if (fd >= 0) close(fd);
    return -1;
}

/* Seals the page (once), makes sure the kit's writes land (a fresh descriptor when the kept one
 * no longer writes this page), keeps ctx and zeroes the kernel's evidence. Master thread, before
 * any student code of the kernel call runs (hl_run). */
static inline __attribute__((unused)) void hl_sealed_reset(hl_ctx *ctx) {
    mprotect(&hl_sealed, sizeof hl_sealed, PROT_READ);
    long nonce = *(const volatile long *)&hl_sealed.s.nonce + 1;
    int mem = *(const volatile int *)&hl_sealed.s.mem;
    int works = 0;
    if (*(const volatile int *)&hl_sealed.s.ready && mem >= 0 &&
        pwrite(mem, &nonce, sizeof nonce, (off_t)(uintptr_t)&hl_sealed.s.nonce) ==
            (ssize_t)sizeof nonce)
        works = *(const volatile long *)&hl_sealed.s.nonce == nonce;
    if (!works) { /* first call (or a descriptor that no longer writes here) */
        int fd = hl_sealed_descriptor();
        struct {
            int ready, mem;
        } head = {1, fd};
        if (fd >= 0 &&
            pwrite(fd, &head, sizeof head, (off_t)(uintptr_t)&hl_sealed.s.ready) ==
                (ssize_t)sizeof head &&
            *(const volatile int *)&hl_sealed.s.mem == fd) {
            syscall(HL_SYS_MSEAL, &hl_sealed, sizeof hl_sealed, 0UL); /* (ENOSYS before 6.10) */
        } else { /* no guarded descriptor: brief windows */
            head.mem = -1;
            if (mprotect(&hl_sealed, sizeof hl_sealed, PROT_READ | PROT_WRITE) != 0)
                hl_sealed_stop("mprotect failed"); /* (a sealed page: a fork's child) */
            memcpy(&hl_sealed.s.ready, &head, sizeof head);
            mprotect(&hl_sealed, sizeof hl_sealed, PROT_READ);
        }
    }
    hl_sealed_put(&hl_sealed.s.ctx, &ctx, sizeof ctx);
    static const long zero[HL_SEALED_DATA / sizeof(long)];
    hl_sealed_put(hl_sealed.s.data, zero, sizeof zero);
}
#endif

/* What runs around a kernel - argument checks, the records' buffer, crash reports, the library
 * entry point and main() - which no kernel calls. */
#include "hl_runtime.h"

/* -------------------------------------------------------------------- records */

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

/* -------------------------------------------------------------- reading parameters */

/* The value of parameter `name`: its last name=value argument, else its default in the table;
 * NULL for a name the table does not hold. */
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

/* The two parameters hl_param_schedule reads, for a kernel's hl_kernel_params table. */
#define HL_SCHEDULE_PARAMS                                                                        \
    {"schedule", "static",                                                                        \
     "OpenMP schedule of the schedule(runtime) loops: static | dynamic | guided | runtime "      \
     "(runtime: OMP_SCHEDULE decides)"},                                                          \
    {"chunk", "0", "chunk size of the schedule (0: the schedule's default)"}

/* Sets the schedule of the kernel's schedule(runtime) loops from its parameters `schedule` and
 * `chunk` (omp_set_schedule; "runtime" leaves the schedule as it is: OMP_SCHEDULE's in a program
 * of its own) and returns the schedule's name; NULL with ctx->error set when either is
 * malformed. */
static inline const char *hl_param_schedule(hl_ctx *ctx, long *chunk) {
    static const char *const names[] = {"static", "dynamic", "guided", "runtime"};
    static const omp_sched_t kinds[] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided};
    int ok = 1;
    int which = hl_param_choice(ctx, "schedule", names, 4);
    if (which < 0) return NULL;
    *chunk = hl_param_long(ctx, "chunk", 0, &ok);
    if (!ok) return NULL;
    if (*chunk > 1000000000L) {
        hl_fail(ctx, "parameter chunk=%ld is too large", *chunk);
        return NULL;
    }
    if (which < 3) omp_set_schedule(kinds[which], (int)*chunk);
    return names[which];
}

/* Calls `each` for every item of the comma-list parameter `name`; returns how many there are
 * (0 for an empty list), or -1 with ctx->error set. */
static inline int hl_param_each(hl_ctx *ctx, const char *name, hl_item_fn each, void *state) {
    const char *cursor = hl_param_str(ctx, name);
    char item[HL_ITEM_MAX];
    HL_OWN_CODE(each, "hl_param_each");
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
    hl_query_thread(&provided);
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

/* The kit's one clock (CLOCK_MONOTONIC, seconds): every timing of every kernel is taken with it. */
static inline double hl_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Starts a step the ranks of `comm` time together: a barrier (none for MPI_COMM_NULL: this rank
 * alone), then hl_now(). End it with hl_slowest_since. */
static inline double hl_start_together(MPI_Comm comm) {
    if (comm != MPI_COMM_NULL) MPI_Barrier(comm);
    return hl_now();
}

/* The seconds since t0 on the slowest rank of `comm`, on every rank: a step of work the ranks
 * share lasts until its last rank is done. Every rank of comm must call it (MPI_COMM_NULL: this
 * rank's own seconds). */
static inline double hl_slowest_since(MPI_Comm comm, double t0) {
    double took = hl_now() - t0, slowest = took;
    if (comm != MPI_COMM_NULL) MPI_Allreduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return slowest;
}

/* `bytes` (at least 1) starting on a page boundary, as OSU's allocate_memory_pt2pt/_coll
 * allocate message buffers (posix_memalign to the page size); free() releases it, NULL if there
 * is no memory. malloc's large buffers start 16 bytes into a page (glibc maps them on their own
 * with its header first), so the copies MPI makes of them differ in alignment from OSU's: the
 * one difference of method left between alltoall.c / pingpong.c and osu_alltoall / osu_latency
 * (benchmarks/anchors.md). */
static inline void *hl_alloc_pages(size_t bytes) {
    void *p = NULL;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return posix_memalign(&p, page, bytes ? bytes : 1) == 0 ? p : NULL;
}

/* Runs the timed work `inner` times. */
typedef void (*hl_work_fn)(void *arg, long inner);

/* Warm up once, then double the inner repetitions until one call lasts at least `target`
 * seconds (EPCC: about 1 ms). With a communicator, the ranks decide together at every step (the
 * slowest rank's time counts), so work that synchronises ranks is called equally often on all. */
static inline long hl_calibrate(MPI_Comm comm, hl_work_fn work, void *arg, double target) {
    long inner = 1;
    HL_OWN_CODE(work, "hl_calibrate");
    work(arg, 1); /* warm-up, discarded */
    for (;;) {
        double t0 = hl_now();
        work(arg, inner);
        if (hl_slowest_since(comm, t0) >= target || inner >= (1L << 40)) return inner;
        inner *= 2;
    }
}

/* Take `outer` samples of `inner` repetitions; samples[i] is seconds per repetition. */
static inline void hl_sample(hl_work_fn work, void *arg, long inner, int outer, double *samples) {
    HL_OWN_CODE(work, "hl_sample");
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
 * vectorise (no -ffast-math), with a test that never prints but keeps the result alive. The
 * counter is an `int`, as EPCC's (lengths beyond INT_MAX run in chunks): a `long` counter's
 * 64-bit conversions made the loop heavier in uops, and the kit's `omp parallel` overhead read
 * 7-40 ns above EPCC's with the same region (benchmarks/anchors.md). */
static inline void hl_delay(long length) {
    float a = 0.0f;
    while (length > 0) {
        int chunk = length > INT_MAX ? INT_MAX : (int)length;
        for (int i = 0; i < chunk; i++) a += (float)i;
        length -= chunk;
    }
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

/* One interval a thread spent in a phase (hl_phase): hl_now() seconds, and the thread's CPU
 * seconds in it when its timeline counts CPU time (hl_timeline_cpu; 0 otherwise). */
typedef struct {
    double start, end, cpu;
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
    int cpu;                              /* the timeline counts CPU time (hl_timeline_cpu) */
    double cpu_mark;                      /* hl_thread_cpu_now() where the interval began */
} hl_timers;

/* Zeroed timers for `nthreads` threads (free with free()), or NULL. */
static inline hl_timers *hl_timers_new(int nthreads) {
    size_t bytes = (size_t)(nthreads > 0 ? nthreads : 1) * sizeof(hl_timers);
    hl_timers *acc = aligned_alloc(_Alignof(hl_timers), bytes);
    if (acc) memset(acc, 0, bytes);
    return acc;
}

/* Zeroes the totals and partials (for the next repetition); timelines are kept. */
static inline void hl_timers_clear(hl_timers *acc, int nthreads) {
    for (int t = 0; t < nthreads; t++) {
        memset(acc[t].t, 0, sizeof acc[t].t);
        acc[t].partial = 0.0;
    }
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
 * trace (hybridlab.runs.traces.chrome_trace); the intervals of a phase add up to its total when every
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
 * interval when the thread records this iteration. Returns the end (where what follows starts).
 * A timeline that counts CPU time (hl_timeline_cpu) gives the interval the thread's CPU seconds
 * since it began: since the previous hl_phase, or since hl_phase_begin after a gap. */
static inline double hl_phase(hl_timers *me, int phase, double t0) {
    double t1 = hl_now(), cpu = 0.0;
    me->t[phase] += t1 - t0;
    if (me->cpu) {
        double c1 = hl_thread_cpu_now();
        cpu = c1 - me->cpu_mark;
        me->cpu_mark = c1;
    }
    if (me->line && me->iteration < me->keep) {
        if (me->n < me->cap)
            me->line[me->n++] = (hl_interval){t0, t1, cpu, me->iteration, phase};
        else
            me->dropped++;
    }
    return t1;
}

/* Begins a phase that does not follow the thread's previous one: returns hl_now() (the t0 of
 * hl_phase) and, when the timeline counts CPU time, marks the thread's CPU clock. */
static inline double hl_phase_begin(hl_timers *me) {
    if (me->cpu) me->cpu_mark = hl_thread_cpu_now();
    return hl_now();
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

/* Makes the timelines of acc[0..nthreads) count each interval's CPU time too (the thread's
 * CPU clock, which stops while it sleeps or is preempted): a "cpu_seconds" field in their
 * records. Begin each thread's first phase with hl_phase_begin. */
static inline void hl_timeline_cpu(hl_timers *acc, int nthreads) {
    for (int t = 0; t < nthreads; t++) acc[t].cpu = 1;
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

/* Writes the fields only the kernel knows of one kept interval of thread `thread` into buf
 * (the inside of a JSON object, no leading comma; "" for none), e.g. the seconds its master
 * spent inside MPI in it. */
typedef void (*hl_interval_fields_fn)(char *buf, size_t cap, int thread, const hl_interval *v,
                                      void *state);

/* One record per kept interval: "record":"timeline","phase":NAME,"iteration":I,"start":S,
 * "end":E,"seconds":E-S with S and E in seconds since `origin` (the hl_now() each rank took
 * right after a common MPI_Barrier), "cpu_seconds" when the timeline counts CPU time, the
 * interval's own fields from `own` (NULL: none), then `tail` (the same for every record). Opens
 * its own team of `nthreads` like hl_emit_timers; call it outside a parallel region. */
static inline void hl_emit_timeline_each(hl_ctx *ctx, const hl_timers *acc, int nthreads,
                                         const char *const *phases, int nphases, double origin,
                                         hl_interval_fields_fn own, void *state,
                                         const char *tail) {
    if (own) HL_OWN_CODE(own, "hl_emit_timeline_each");
#pragma omp parallel num_threads(nthreads)
    {
        int thread = omp_get_thread_num();
        const hl_timers *me = &acc[thread];
        char cpu[48] = "", mine[512] = "";
        for (long i = 0; i < me->n; i++) {
            const hl_interval *v = &me->line[i];
            if (v->phase < 0 || v->phase >= nphases) continue;
            if (me->cpu) snprintf(cpu, sizeof cpu, ",\"cpu_seconds\":%.9f", v->cpu);
            if (own) own(mine, sizeof mine, thread, v, state);
            hl_emit(ctx,
                    "\"record\":\"timeline\",\"phase\":\"%s\",\"iteration\":%ld,\"start\":%.9f,"
                    "\"end\":%.9f,\"seconds\":%.9g%s%s%s%s%s",
                    phases[v->phase], v->iteration, v->start - origin, v->end - origin,
                    v->end - v->start, cpu, mine[0] ? "," : "", mine, tail[0] ? "," : "", tail);
        }
    }
}

/* hl_emit_timeline_each without fields of the intervals' own; `fields` printf-style. */
static inline void hl_emit_timeline(hl_ctx *ctx, const hl_timers *acc, int nthreads,
                                    const char *const *phases, int nphases, double origin,
                                    const char *fields, ...) {
    char tail[1536];
    va_list ap;
    va_start(ap, fields);
    vsnprintf(tail, sizeof tail, fields, ap);
    va_end(ap);
    hl_emit_timeline_each(ctx, acc, nthreads, phases, nphases, origin, NULL, NULL, tail);
}

#endif /* HYBRIDLAB_H */
