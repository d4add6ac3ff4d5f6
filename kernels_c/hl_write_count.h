/* hl_write_count.h: who wrote a whole program's memory inside parallel regions (lab 10 (a)), part
 * of the tracer (hl_trace.c includes it; the kit's object, compiled without the sanitizer).
 *
 * The counted build (hybridlab.slurm.jobs.build_program(count_writes=True), COUNT_WRITES): the
 * program compiled by GCC with ThreadSanitizer's instrumentation (--sanitize=thread) and linked
 * with -Wl,--wrap for its store entry points (__tsan_write1..16, the unaligned ones,
 * __tsan_write_range for other sizes), memcpy, memmove, memset, the heap's allocation calls and
 * __tsan_func_exit (a function's end settles its thread's last store).
 * Every store the program's own code makes passes through the wrappers below, which credit, per
 * OS thread and per bucket, the bytes the store CHANGED (each store's old bytes are kept and
 * compared at the thread's next store: writing back the value already there changes nothing)
 * while the thread is inside a parallel region (omp_get_level() > 0: the serial part is not
 * judged). A bucket is one heap block of HL_WC_BIG bytes or more (its own), or everything else
 * but the writing thread's own stack (bucket 0: globals, small blocks, other threads' stacks);
 * writes to a thread's own stack are not counted. Each heap block also keeps, per word of 8
 * bytes, the thread whose store last changed it inside a parallel region ("owned": a fresh
 * attacker's k10spin4 had thread 0 sweep every row while the others scribbled into the rows
 * first and copied them after, each earning changed bytes of both blocks; the sweep's block is
 * then owned by thread 0 alone). A copy from one block into another (memcpy, memmove) keeps each
 * word's author: the copied words are owned by whoever owned them in the source (a fresh
 * attacker's right answer R10single copied the shared update's block back on one thread, in
 * `single`, and lost its points as if one thread had swept). At MPI_Finalize one "writes" record per (bucket, thread) that
 * changed or owns anything. Elsewhere (no --wrap) the __real_ names are weak and
 * nothing here is called; every __wrap_ here is weak, so a kernel's own (lab 07 (d)'s count,
 * lab 16's watch) takes precedence in its build. */
#include <pthread.h>

#define HL_WC_THREADS 64
#define HL_WC_BUCKETS 64
#define HL_WC_BIG (64L << 10)
static atomic_uintptr_t wc_lo[HL_WC_BUCKETS], wc_hi[HL_WC_BUCKETS]; /* bucket b >= 1: a block */
static unsigned char *_Atomic wc_owner[HL_WC_BUCKETS]; /* per word of a block: last writer + 1 */
static atomic_uintptr_t wc_words[HL_WC_BUCKETS];      /* its words (kept when the block is freed) */
static atomic_int wc_blocks = 1;
static long wc_changed[HL_WC_THREADS][HL_WC_BUCKETS + 8]; /* a row per thread, its own line */
static atomic_long wc_tid[HL_WC_THREADS];
static atomic_int wc_threads;
static _Thread_local int wc_slot = -1, wc_pend_bucket;
static _Thread_local uintptr_t wc_pend, wc_stack_lo, wc_stack_hi;
static _Thread_local unsigned long wc_pend_size;
static _Thread_local unsigned char wc_old[16];
extern const char __start_hl_cell_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_hl_cell_text[] __attribute__((weak, visibility("hidden")));

static int wc_mine(void) { /* this thread's row (and its stack's bounds), -1 beyond the table */
    if (wc_slot < 0) {
        int slot = atomic_fetch_add(&wc_threads, 1);
        if (slot >= HL_WC_THREADS) return -1;
        atomic_store(&wc_tid[slot], (long)syscall(SYS_gettid));
        pthread_attr_t attr;
        void *base;
        size_t size;
        if (!pthread_getattr_np(pthread_self(), &attr)) {
            if (!pthread_attr_getstack(&attr, &base, &size))
                wc_stack_lo = (uintptr_t)base, wc_stack_hi = (uintptr_t)base + size;
            pthread_attr_destroy(&attr);
        }
        wc_slot = slot;
    }
    return wc_slot;
}

static int wc_bucket(uintptr_t a) { /* -1: this thread's own stack */
    if (a >= wc_stack_lo && a < wc_stack_hi) return -1;
    int blocks = atomic_load_explicit(&wc_blocks, memory_order_acquire);
    for (int b = 1; b < blocks; b++)
        if (a >= atomic_load_explicit(&wc_lo[b], memory_order_relaxed) &&
            a < atomic_load_explicit(&wc_hi[b], memory_order_relaxed))
            return b;
    return 0;
}

static void wc_credit(int slot, int bucket, unsigned long bytes) {
    __atomic_store_n(&wc_changed[slot][bucket], wc_changed[slot][bucket] + (long)bytes,
                     __ATOMIC_RELAXED);
}

static void wc_own(int slot, int bucket, uintptr_t at, unsigned long size) {
    unsigned char *owner = bucket > 0 ? atomic_load_explicit(&wc_owner[bucket], memory_order_acquire)
                                      : NULL;
    if (!owner || !size) return;
    uintptr_t lo = atomic_load_explicit(&wc_lo[bucket], memory_order_relaxed);
    uintptr_t words = atomic_load_explicit(&wc_words[bucket], memory_order_relaxed);
    for (uintptr_t w = (at - lo) / 8; w <= (at + size - 1 - lo) / 8 && w < words; w++)
        __atomic_store_n(&owner[w], (unsigned char)(slot + 1), __ATOMIC_RELAXED);
}

static unsigned char wc_owner_at(int bucket, uintptr_t at) { /* a block's word's last writer + 1 */
    unsigned char *owner = atomic_load_explicit(&wc_owner[bucket], memory_order_acquire);
    uintptr_t w = (at - atomic_load_explicit(&wc_lo[bucket], memory_order_relaxed)) / 8;
    return owner && w < atomic_load_explicit(&wc_words[bucket], memory_order_relaxed)
               ? __atomic_load_n(&owner[w], __ATOMIC_RELAXED) : 0;
}

static void wc_settle(int slot) { /* the thread's previous store: did it change its bytes? */
    const unsigned char *now = (const unsigned char *)wc_pend;
    for (unsigned long k = 0; k < wc_pend_size; k++)
        if (now[k] != wc_old[k]) {
            wc_credit(slot, wc_pend_bucket, wc_pend_size);
            wc_own(slot, wc_pend_bucket, wc_pend, wc_pend_size);
            break;
        }
    wc_pend_size = 0;
}

static void wc_store(void *at, unsigned long size) {
    int slot = wc_mine();
    if (slot < 0) return;
    wc_settle(slot);
    if (omp_get_level() == 0) return;
    int bucket = wc_bucket((uintptr_t)at);
    if (bucket < 0) return;
    if (size > sizeof wc_old) { /* a store of another size: its bytes, unsettled */
        wc_credit(slot, bucket, size);
        wc_own(slot, bucket, (uintptr_t)at, size);
        return;
    }
    for (unsigned long k = 0; k < size; k++) wc_old[k] = ((const unsigned char *)at)[k];
    wc_pend = (uintptr_t)at, wc_pend_size = size, wc_pend_bucket = bucket;
}

#define HL_WC_WRITE(name, size)                                                                    \
    extern void __real_##name(void *) __attribute__((weak));                                       \
    void __wrap_##name(void *a);                                                                   \
    __attribute__((weak)) void __wrap_##name(void *a) {                                            \
        wc_store(a, size);                                                                         \
        __real_##name(a);                                                                          \
    }
HL_WC_WRITE(__tsan_write1, 1)
HL_WC_WRITE(__tsan_write2, 2)
HL_WC_WRITE(__tsan_write4, 4)
HL_WC_WRITE(__tsan_write8, 8)
HL_WC_WRITE(__tsan_write16, 16)
HL_WC_WRITE(__tsan_unaligned_write2, 2)
HL_WC_WRITE(__tsan_unaligned_write4, 4)
HL_WC_WRITE(__tsan_unaligned_write8, 8)
HL_WC_WRITE(__tsan_unaligned_write16, 16)
/* a function of the program returns: the thread's last store settled (the outlined body of a
 * parallel region ends in one) */
extern void __real___tsan_func_exit(void) __attribute__((weak));
void __wrap___tsan_func_exit(void);
__attribute__((weak)) void __wrap___tsan_func_exit(void) {
    if (wc_pend_size && wc_slot >= 0) wc_settle(wc_slot);
    __real___tsan_func_exit();
}
extern void __real___tsan_write_range(void *, unsigned long) __attribute__((weak));
void __wrap___tsan_write_range(void *a, unsigned long size);
__attribute__((weak)) void __wrap___tsan_write_range(void *a, unsigned long size) {
    wc_store(a, size);
    __real___tsan_write_range(a, size);
}

/* a copy or fill the program's own code calls: the bytes it changes, counted at once */
static void wc_bulk(const void *caller, void *d, const void *s, int c, size_t size) {
    const char *p = (const char *)caller;
    if (!size || !__start_hl_cell_text || p < __start_hl_cell_text || p >= __stop_hl_cell_text)
        return;
    int slot = wc_mine();
    if (slot < 0) return;
    wc_settle(slot);
    int bucket;
    if (omp_get_level() == 0 || (bucket = wc_bucket((uintptr_t)d)) < 0) return;
    const unsigned char *to = d, *from = s;
    int source = from ? wc_bucket((uintptr_t)from) : 0; /* > 0: a copy out of another block */
    unsigned long changed = 0;
    for (size_t at = 0; at < size; at += 8) { /* by words of 8 bytes, as stores are counted */
        size_t end = size - at < 8 ? size : at + 8, k = at;
        while (k < end && to[k] == (from ? from[k] : (unsigned char)c)) k++;
        changed += k < end ? end - at : 0;
        if (k < end && source > 0) /* a copy between blocks: each word keeps its author */
            wc_own(wc_owner_at(source, (uintptr_t)from + at) - 1, bucket, (uintptr_t)to + at, end - at);
        else if (k < end)
            wc_own(slot, bucket, (uintptr_t)to + at, end - at);
    }
    wc_credit(slot, bucket, changed);
}
extern void *__real_memcpy(void *, const void *, size_t) __attribute__((weak));
extern void *__real_memmove(void *, const void *, size_t) __attribute__((weak));
extern void *__real_memset(void *, int, size_t) __attribute__((weak));
void *__wrap_memcpy(void *d, const void *s, size_t n);
/* weak: a kernel's own watch of the same calls (race_bins.c, HL_WATCH_BINS) takes precedence */
__attribute__((weak)) void *__wrap_memcpy(void *d, const void *s, size_t n) {
    wc_bulk(__builtin_return_address(0), d, s, 0, n);
    return __real_memcpy(d, s, n);
}
void *__wrap_memmove(void *d, const void *s, size_t n);
/* weak: a kernel's own watch of the same calls (race_bins.c, HL_WATCH_BINS) takes precedence */
__attribute__((weak)) void *__wrap_memmove(void *d, const void *s, size_t n) {
    wc_bulk(__builtin_return_address(0), d, s, 0, n);
    return __real_memmove(d, s, n);
}
void *__wrap_memset(void *d, int c, size_t n);
/* weak: a kernel's own watch of the same calls (race_bins.c, HL_WATCH_BINS) takes precedence */
__attribute__((weak)) void *__wrap_memset(void *d, int c, size_t n) {
    wc_bulk(__builtin_return_address(0), d, NULL, c, n);
    return __real_memset(d, c, n);
}

extern void *__real_malloc(size_t) __attribute__((weak));
extern void *__real_calloc(size_t, size_t) __attribute__((weak));
extern void *__real_realloc(void *, size_t) __attribute__((weak));
extern void *__real_aligned_alloc(size_t, size_t) __attribute__((weak));
extern int __real_posix_memalign(void **, size_t, size_t) __attribute__((weak));
extern void __real_free(void *) __attribute__((weak));
/* the heap's large blocks, each its own bucket (a freed block's bucket keeps its counts) */
static void *wc_block(void *p, size_t size) {
    if (p && size >= (size_t)HL_WC_BIG) {
        int b = atomic_fetch_add(&wc_blocks, 1);
        if (b < HL_WC_BUCKETS) {
            atomic_store(&wc_lo[b], (uintptr_t)p);
            atomic_store(&wc_hi[b], (uintptr_t)p + size);
            atomic_store(&wc_words[b], (uintptr_t)(size / 8 + 1));
            atomic_store(&wc_owner[b], __real_calloc(size / 8 + 1, 1)); /* NULL: not owned */
        } else
            atomic_store(&wc_blocks, HL_WC_BUCKETS);
    }
    return p;
}
static void wc_unblock(void *p) {
    int blocks = atomic_load(&wc_blocks);
    for (int b = 1; p && b < blocks; b++)
        if (atomic_load(&wc_lo[b]) == (uintptr_t)p) atomic_store(&wc_hi[b], (uintptr_t)p);
}
void *__wrap_malloc(size_t n);
__attribute__((weak)) void *__wrap_malloc(size_t n) { return wc_block(__real_malloc(n), n); }
void *__wrap_calloc(size_t k, size_t n);
__attribute__((weak)) void *__wrap_calloc(size_t k, size_t n) {
    return wc_block(__real_calloc(k, n), n && k > (size_t)-1 / n ? 0 : k * n);
}
void *__wrap_realloc(void *p, size_t n);
__attribute__((weak)) void *__wrap_realloc(void *p, size_t n) {
    wc_unblock(p);
    return wc_block(__real_realloc(p, n), n);
}
void *__wrap_aligned_alloc(size_t a, size_t n);
__attribute__((weak)) void *__wrap_aligned_alloc(size_t a, size_t n) { return wc_block(__real_aligned_alloc(a, n), n); }
int __wrap_posix_memalign(void **p, size_t a, size_t n);
__attribute__((weak)) int __wrap_posix_memalign(void **p, size_t a, size_t n) {
    int rc = __real_posix_memalign(p, a, n);
    if (!rc) wc_block(*p, n);
    return rc;
}
void __wrap_free(void *p);
__attribute__((weak)) void __wrap_free(void *p) {
    wc_unblock(p);
    __real_free(p);
}

/* the "writes" records: per bucket and thread, the bytes changed inside parallel regions and,
 * for a heap block, the bytes whose last change there was the thread's ("owned"; -1: bucket 0, or
 * a block whose owner map could not be made) */
static void write_shares(hl_ctx *ctx) {
    char line[260];
    int threads = atomic_load(&wc_threads), blocks = atomic_load(&wc_blocks);
    if (threads > HL_WC_THREADS) threads = HL_WC_THREADS;
    if (blocks > HL_WC_BUCKETS) blocks = HL_WC_BUCKETS;
    for (int b = 0; b < blocks; b++) {
        long owned[HL_WC_THREADS + 1] = {0};
        unsigned char *owner = b ? atomic_load(&wc_owner[b]) : NULL;
        uintptr_t words = owner ? atomic_load(&wc_words[b]) : 0;
        for (uintptr_t w = 0; w < words; w++) owned[owner[w]] += 8;
        for (int t = 0; t < threads; t++) {
            long bytes = __atomic_load_n(&wc_changed[t][b], __ATOMIC_RELAXED);
            if (!bytes && !owned[t + 1]) continue;
            int n = snprintf(line, sizeof line,
                             "{\"rank\":%d,\"record\":\"writes\",\"bucket\":%d,\"tid\":%ld,"
                             "\"changed\":%ld,\"owned\":%ld}\n",
                             ctx->rank, b, atomic_load(&wc_tid[t]), bytes, owner ? owned[t + 1] : -1L);
            hl_append(ctx, line, (size_t)n);
        }
    }
}
