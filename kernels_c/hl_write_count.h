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
 * then owned by thread 0 alone). Ownership follows the word's value, not the last store: each word
 * keeps its last HL_WC_RUNS runs (a run: the stores one thread, or the serial part, made in a row,
 * with the value the word held before it); a store that brings the word back to the value it held
 * before a kept run undoes that run and every run after it, and the word is again owned by whoever
 * owned it before them (a fresh attacker's A10_reown and A10_masked_compound, 5/5 kept, 2026-12-05:
 * thread 0 swept every row, the others stored x + 1 and then x back in their rows, each store a
 * change, and were the last to change every word; a word changed and put back is no change, so
 * thread 0 keeps it). The serial part's stores are runs too (of no thread: they are credited to
 * none), so a word the serial part changed and a thread then put back is the earlier thread's.
 * A copy from one block into another (memcpy, memmove) keeps each
 * word's author: the copied words are owned by whoever owned them in the source (a fresh
 * attacker's right answer R10single copied the shared update's block back on one thread, in
 * `single`, and lost its points as if one thread had swept). A copy out of other memory (a
 * thread's stack, a global, a small heap block) gives each word to whoever last stored it there:
 * every store of the program outside the blocks is noted, per word, in a table of its author
 * (wc_seen, lossy: a word not found is no one's), so a row a thread copies out of its own
 * buffer is its own, and a row copied out of another thread's stack is that thread's (a fresh
 * attacker's L10_G7, 5/5 twice, 2026-12-06: thread 0 computed the other threads' rows into a
 * buffer on its stack, which they only copied into the grid). A thread's store into a block's
 * word that writes what another thread wrote there (the value another thread's change left,
 * unchanged, or a change of the same value from the same value as another thread's last change:
 * two threads writing one update) is "echoed": the team wrote the word twice (a fresh attacker's
 * L10_G2, 5/5 twice, 2026-12-06: every thread swept the whole block, racing to write the same
 * values, each the last changer of a share). At MPI_Finalize one "writes" record per (bucket,
 * thread) that changed, owns or echoed anything.
 * Which thread COMPUTED each word: the stores clang's IR finds to be the update's writes (a value
 * made from four or more values read) are handed to the run as their sites in the GCC build
 * (HL_UPDATE_SITES: the return addresses of their instrumentation calls, as offsets in the cell's
 * code; hybridlab.whole_program.exercise.update_sites), read before main onto the tracer's sealed
 * page, with the sites of the reads the IR finds the update's values made from. A store at such a
 * site computes what it stores when its thread made HL_WC_UPDATE_READS or more of the update's
 * reads since its previous store there (the neighbours: three, as a sliding window that keeps the
 * point's left and centre in registers reads them; its own old value alone is no computing), and a
 * block's word keeps who last changed it by such a store ("computed"; a word of other memory, in a
 * lossy table by its address as wc_seen: a grid of small blocks, one per row): a thread that only changes
 * words another thread's update wrote (u10_decode's arithmetic form, 5/5 kept, 2026-12-06: thread 0
 * swept every row, the others' rows stored negated, which they negated back after spinning; by
 * another store, or by the update's own store through a select) computed none of them, however
 * it then owns them. The bytes the serial part CHANGED (stores outside every parallel region, in any
 * memory, its own stack too; copies and fills of words whose author is the serial part or no one
 * known) are summed, every change counted, in a "serial_changed" record: a grid the master sweeps
 * alone changes as many bytes as the update does, whatever its blocks' sizes (a fresh attacker's
 * l10_a1_serial_hidden, 5/5 twice, 2026-12-07: one small block per row, bucket 0, whose serial
 * part was not counted). Elsewhere (no --wrap) the __real_ names are weak and
 * nothing here is called; every __wrap_ here is weak, so a kernel's own (lab 07 (d)'s count,
 * lab 16's watch) takes precedence in its build. */
#include <pthread.h>

#define HL_WC_THREADS 64
#define HL_WC_BUCKETS 64
#define HL_WC_BIG (64L << 10)
static atomic_uintptr_t wc_lo[HL_WC_BUCKETS], wc_hi[HL_WC_BUCKETS]; /* bucket b >= 1: a block */
#define HL_WC_RUNS 8   /* the runs kept per word of a block */
#define HL_WC_SERIAL 255 /* a run of the serial part (owned by no thread) */
typedef struct {      /* a word's last runs, oldest first: who (slot + 1, or HL_WC_SERIAL), and a */
    uint32_t from[HL_WC_RUNS]; /* hash of the value the word held before the run */
    uint32_t last_from;        /* the last change (of any run): a hash of the value before it, */
    unsigned char last_who;    /* and who made it (0: none yet) */
    unsigned char who[HL_WC_RUNS];
    unsigned char runs;
    unsigned char computed;    /* who last changed it by a store of the update's (0: none yet) */
} wc_word;
static wc_word *_Atomic wc_owner[HL_WC_BUCKETS]; /* per word of a block: its runs (owner: the last) */
static atomic_uintptr_t wc_words[HL_WC_BUCKETS];      /* its words (kept when the block is freed) */
static atomic_int wc_blocks = 1;
static long wc_changed[HL_WC_THREADS][HL_WC_BUCKETS + 8]; /* a row per thread, its own line */
static long wc_echoed[HL_WC_THREADS][HL_WC_BUCKETS + 8];  /* bytes a thread wrote that another had */
static atomic_long wc_serial_changed; /* bytes the serial part changed (every change counted) */
/* the author of each word of other memory than the blocks (stacks, globals, small blocks), by a
 * hash of its address: (address / 8) << 8 | who; lossy (a later word of the same hash takes the
 * entry). Made at the first store noted (the counted build only). */
#define HL_WC_SEEN (1L << 20)
static _Atomic(_Atomic uint64_t *) wc_seen;
static _Atomic(_Atomic uint64_t *) wc_done; /* ... and who last changed it by a store of the update's */
static atomic_long wc_tid[HL_WC_THREADS];
static atomic_int wc_threads;
static _Thread_local int wc_slot = -1, wc_pend_bucket, wc_pend_who, wc_pend_site;
static _Thread_local long wc_update_reads; /* the update's reads since the thread's last update store */
#define HL_WC_UPDATE_READS 3 /* ... that a store of the update computes what it stores after */
static _Thread_local uintptr_t wc_pend, wc_stack_lo, wc_stack_hi;
static _Thread_local unsigned long wc_pend_size;
static _Thread_local unsigned char wc_old[16];
static _Thread_local uint64_t wc_old_words[3]; /* a block's words the pending store covers, before it */
extern void *__real_calloc(size_t, size_t) __attribute__((weak));
extern void __real_free(void *) __attribute__((weak));
extern const char __start_hl_cell_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_hl_cell_text[] __attribute__((weak, visibility("hidden")));

/* Before main: the update's store sites onto the sealed page (a student's program has no
 * constructor, unit_checks), HL_UPDATE_SITES gone from the environment. */
static void __attribute__((constructor)) wc_sites_loaded(void) {
    const char *text = getenv("HL_UPDATE_SITES");
    if (!text) return;
    F.update_sites_given = 1;
    char *end;
    int *count = &F.update_site_count;
    unsigned int *sites = F.update_sites;
    for (const char *p = text; *p; p = end) { /* "stores;reads", each a list of hex offsets */
        if (*p == ';' && sites == F.update_sites) {
            count = &F.update_read_count, sites = F.update_reads, end = (char *)p + 1;
            continue;
        }
        unsigned long at = strtoul(p, &end, 16);
        if (end == p) break;
        if (*count < HL_MAX_UPDATE_SITES) sites[(*count)++] = (unsigned int)at;
        if (*end == ',') end++;
    }
    unsetenv("HL_UPDATE_SITES");
}

static int wc_in(const void *caller, const unsigned int *sites, int count) { /* one of the sites */
    uintptr_t at = (uintptr_t)caller - (uintptr_t)__start_hl_cell_text;
    if (!__start_hl_cell_text || (const char *)caller < __start_hl_cell_text) return 0;
    for (int k = 0; k < count; k++)
        if (sites[k] == at) return 1;
    return 0;
}

static int wc_site(const void *caller) { /* a store of the update's computing what it stores */
    if (!wc_in(caller, F.update_sites, F.update_site_count)) return 0;
    int computing = wc_update_reads >= HL_WC_UPDATE_READS;
    wc_update_reads = 0;
    return computing;
}

static void wc_computed(int bucket, uintptr_t w, int who) { /* word w changed by an update store */
    wc_word *words = bucket > 0 ? atomic_load_explicit(&wc_owner[bucket], memory_order_acquire) : NULL;
    if (words && w < atomic_load_explicit(&wc_words[bucket], memory_order_relaxed))
        words[w].computed = (unsigned char)who;
}

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

static uint32_t wc_hash(uint64_t v) { return (uint32_t)((v * 0x9E3779B97F4A7C15ull) >> 32); }

static uint64_t wc_word_at(int bucket, uintptr_t w) { /* word w of a block, as it is now */
    uintptr_t lo = atomic_load_explicit(&wc_lo[bucket], memory_order_relaxed);
    uintptr_t hi = atomic_load_explicit(&wc_hi[bucket], memory_order_relaxed);
    uint64_t v = 0;
    if (lo + 8 * w + 8 <= hi) __builtin_memcpy(&v, (const void *)(lo + 8 * w), 8);
    else if (lo + 8 * w < hi) __builtin_memcpy(&v, (const void *)(lo + 8 * w), hi - lo - 8 * w);
    return v;
}

static void wc_echo(int actor, int bucket) { /* actor (slot + 1) wrote a word another thread had */
    if (actor > 0 && actor <= HL_WC_THREADS)
        __atomic_store_n(&wc_echoed[actor - 1][bucket], wc_echoed[actor - 1][bucket] + 8, __ATOMIC_RELAXED);
}

/* word w of a block changed from `old` to `now` by `who` (slot + 1, or HL_WC_SERIAL), stored by
 * `actor` (the storing thread's slot + 1, or HL_WC_SERIAL): back to the value it held before a
 * kept run, that run and those after it are undone (its owner is again the one before them);
 * otherwise the change continues who's run, or starts a new one. The actor's store in a parallel
 * region echoes another thread's when it leaves the value another thread's change made
 * (unchanged), or changes the word from the value another thread's last change started from
 * (both wrote one update: the first store's value not yet seen by the second) */
static void wc_change(int bucket, uintptr_t w, uint64_t old, uint64_t now, int who, int actor) {
    wc_word *words = bucket > 0 ? atomic_load_explicit(&wc_owner[bucket], memory_order_acquire) : NULL;
    if (!words || w >= atomic_load_explicit(&wc_words[bucket], memory_order_relaxed)) return;
    wc_word *word = &words[w];
    int other = word->last_who && word->last_who != HL_WC_SERIAL && word->last_who != actor &&
                actor != HL_WC_SERIAL;
    if (old == now) {
        if (other) wc_echo(actor, bucket);
        return;
    }
    if (other && word->last_from == wc_hash(old)) wc_echo(actor, bucket);
    word->last_from = wc_hash(old);
    word->last_who = (unsigned char)actor;
    uint32_t back = wc_hash(now);
    int runs = word->runs < HL_WC_RUNS ? word->runs : HL_WC_RUNS;
    for (int k = runs - 1; k >= 0; k--)
        if (word->from[k] == back) {
            word->runs = (unsigned char)k;
            return;
        }
    if (runs && word->who[runs - 1] == who) return;
    if (runs == HL_WC_RUNS) { /* the oldest run forgotten */
        __builtin_memmove(word->from, word->from + 1, sizeof word->from - sizeof word->from[0]);
        __builtin_memmove(word->who, word->who + 1, sizeof word->who - 1);
        runs--;
    }
    word->from[runs] = wc_hash(old);
    word->who[runs] = (unsigned char)who;
    word->runs = (unsigned char)(runs + 1);
}

/* a store of `size` bytes at `at` by `who` whose value after it is not known here (a range): a run
 * of who's, from the words' values now */
static void wc_own(int who, int bucket, uintptr_t at, unsigned long size) {
    if (bucket <= 0 || !size || !atomic_load_explicit(&wc_owner[bucket], memory_order_acquire)) return;
    uintptr_t lo = atomic_load_explicit(&wc_lo[bucket], memory_order_relaxed);
    for (uintptr_t w = (at - lo) / 8; w <= (at + size - 1 - lo) / 8; w++) {
        uint64_t v = wc_word_at(bucket, w);
        wc_change(bucket, w, v, ~v, who, who); /* a change of unknown value: a run of who's */
    }
}

static _Atomic uint64_t *wc_table(_Atomic(_Atomic uint64_t *) *table) { /* made at first use (a race: one kept) */
    _Atomic uint64_t *t = atomic_load_explicit(table, memory_order_acquire);
    if (!t) {
        _Atomic uint64_t *made = __real_calloc(HL_WC_SEEN, sizeof *made), *none = NULL;
        if (made && !atomic_compare_exchange_strong(table, &none, made)) __real_free(made);
        t = atomic_load_explicit(table, memory_order_acquire);
    }
    return t;
}

static size_t wc_seen_at(uintptr_t word) { return (size_t)((word * 0x9E3779B97F4A7C15ull) >> 44) & (HL_WC_SEEN - 1); }

/* the words of [at, at + size) outside the blocks stored (wc_seen; wc_done: changed by a store of the
 * update's) by who (slot + 1, or HL_WC_SERIAL) */
static void wc_note(_Atomic(_Atomic uint64_t *) *table, uintptr_t at, unsigned long size, int who) {
    _Atomic uint64_t *t = size ? wc_table(table) : NULL;
    if (!t) return;
    for (uintptr_t w = at / 8; w <= (at + size - 1) / 8; w++)
        atomic_store_explicit(&t[wc_seen_at(w)], (uint64_t)w << 8 | (unsigned char)who, memory_order_relaxed);
}

static int wc_noted(uintptr_t at) { /* who last stored the word at `at` outside the blocks (0: not known) */
    _Atomic uint64_t *t = atomic_load_explicit(&wc_seen, memory_order_acquire);
    if (!t) return 0;
    uint64_t e = atomic_load_explicit(&t[wc_seen_at(at / 8)], memory_order_relaxed);
    return e >> 8 == at / 8 ? (int)(e & 0xff) : 0;
}

static unsigned char wc_owner_at(int bucket, uintptr_t at) { /* a block's word's owner (slot + 1), 0: none */
    wc_word *words = atomic_load_explicit(&wc_owner[bucket], memory_order_acquire);
    uintptr_t w = (at - atomic_load_explicit(&wc_lo[bucket], memory_order_relaxed)) / 8;
    if (!words || w >= atomic_load_explicit(&wc_words[bucket], memory_order_relaxed)) return 0;
    int runs = words[w].runs;
    return runs && words[w].who[runs - 1] != HL_WC_SERIAL ? words[w].who[runs - 1] : 0;
}

static void wc_settle(int slot) { /* the thread's previous store: did it change its bytes? */
    const unsigned char *now = (const unsigned char *)wc_pend;
    if (wc_pend_size && wc_pend_bucket > 0) { /* a block's words: whose run */
        uintptr_t lo = atomic_load_explicit(&wc_lo[wc_pend_bucket], memory_order_relaxed);
        uintptr_t first = (wc_pend - lo) / 8, last = (wc_pend + wc_pend_size - 1 - lo) / 8;
        for (uintptr_t w = first; w <= last && w < first + 3; w++) {
            uint64_t now_word = wc_word_at(wc_pend_bucket, w);
            wc_change(wc_pend_bucket, w, wc_old_words[w - first], now_word, wc_pend_who, wc_pend_who);
            if (wc_pend_site && now_word != wc_old_words[w - first]) wc_computed(wc_pend_bucket, w, wc_pend_who);
        }
    }
    for (unsigned long k = 0; k < wc_pend_size && wc_pend_who == HL_WC_SERIAL; k++)
        if (now[k] != wc_old[k]) {
            atomic_fetch_add_explicit(&wc_serial_changed, (long)wc_pend_size, memory_order_relaxed);
            break;
        }
    for (unsigned long k = 0; k < wc_pend_size && wc_pend_who != HL_WC_SERIAL; k++)
        if (now[k] != wc_old[k]) {
            wc_credit(slot, wc_pend_bucket, wc_pend_size);
            if (wc_pend_site && wc_pend_bucket == 0) wc_note(&wc_done, wc_pend, wc_pend_size, wc_pend_who);
            break;
        }
    wc_pend_size = 0;
}

static void wc_store(void *at, unsigned long size, const void *caller) {
    int slot = wc_mine();
    if (slot < 0) return;
    wc_settle(slot);
    int serial = omp_get_level() == 0;
    int bucket = wc_bucket((uintptr_t)at); /* the serial part: only its runs in blocks */
    int who = serial ? HL_WC_SERIAL : slot + 1;
    if (bucket <= 0) wc_note(&wc_seen, (uintptr_t)at, size, who); /* other memory: its author */
    if (bucket < 0 && !serial) return; /* a thread's own stack in a parallel region */
    if (size > sizeof wc_old) { /* a store of another size: its bytes, unsettled */
        if (serial) atomic_fetch_add_explicit(&wc_serial_changed, (long)size, memory_order_relaxed);
        if (serial && bucket <= 0) return;
        if (!serial) wc_credit(slot, bucket, size);
        wc_own(who, bucket, (uintptr_t)at, size);
        if (bucket > 0 && wc_site(caller)) {
            uintptr_t lo = atomic_load_explicit(&wc_lo[bucket], memory_order_relaxed);
            for (uintptr_t w = ((uintptr_t)at - lo) / 8; w <= ((uintptr_t)at + size - 1 - lo) / 8; w++)
                wc_computed(bucket, w, who);
        }
        return;
    }
    for (unsigned long k = 0; k < size; k++) wc_old[k] = ((const unsigned char *)at)[k];
    if (bucket > 0) {
        uintptr_t first = ((uintptr_t)at - atomic_load_explicit(&wc_lo[bucket], memory_order_relaxed)) / 8;
        for (int k = 0; k < 3; k++) wc_old_words[k] = wc_word_at(bucket, first + k);
    }
    wc_pend = (uintptr_t)at, wc_pend_size = size, wc_pend_bucket = bucket, wc_pend_who = who;
    wc_pend_site = wc_site(caller);
}

/* a read of the program's: one of the update's (its sites: HL_UPDATE_SITES) counted for the thread */
#define HL_WC_READ(name)                                                                           \
    extern void __real_##name(void *) __attribute__((weak));                                       \
    void __wrap_##name(void *a);                                                                   \
    __attribute__((weak)) void __wrap_##name(void *a) {                                            \
        if (wc_in(__builtin_return_address(0), F.update_reads, F.update_read_count)) wc_update_reads++; \
        __real_##name(a);                                                                          \
    }
HL_WC_READ(__tsan_read1)
HL_WC_READ(__tsan_read2)
HL_WC_READ(__tsan_read4)
HL_WC_READ(__tsan_read8)
HL_WC_READ(__tsan_read16)
HL_WC_READ(__tsan_unaligned_read2)
HL_WC_READ(__tsan_unaligned_read4)
HL_WC_READ(__tsan_unaligned_read8)
HL_WC_READ(__tsan_unaligned_read16)
extern void __real___tsan_read_range(void *, unsigned long) __attribute__((weak));
void __wrap___tsan_read_range(void *a, unsigned long size);
__attribute__((weak)) void __wrap___tsan_read_range(void *a, unsigned long size) {
    if (wc_in(__builtin_return_address(0), F.update_reads, F.update_read_count)) wc_update_reads++;
    __real___tsan_read_range(a, size);
}

#define HL_WC_WRITE(name, size)                                                                    \
    extern void __real_##name(void *) __attribute__((weak));                                       \
    void __wrap_##name(void *a);                                                                   \
    __attribute__((weak)) void __wrap_##name(void *a) {                                            \
        wc_store(a, size, __builtin_return_address(0));                                            \
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
    wc_store(a, size, __builtin_return_address(0));
    __real___tsan_write_range(a, size);
}

/* a copy or fill the program's own code calls: the bytes it changes, counted at once (in the serial
 * part: only its runs in blocks); own: bytes the calling thread made (formatted output), each word
 * its own however the source was written */
static void wc_bulk(const void *caller, void *d, const void *s, int c, size_t size, int own) {
    const char *p = (const char *)caller;
    if (!size || !__start_hl_cell_text || p < __start_hl_cell_text || p >= __stop_hl_cell_text)
        return;
    int slot = wc_mine();
    if (slot < 0) return;
    wc_settle(slot);
    int bucket = wc_bucket((uintptr_t)d), serial = omp_get_level() == 0;
    int actor = serial ? HL_WC_SERIAL : slot + 1;
    const unsigned char *to = d, *from = s;
    int source = from ? wc_bucket((uintptr_t)from) : 0; /* > 0: a copy out of another block */
    int site = bucket > 0 && wc_site(caller); /* the update's copy: its words computed by their authors */
    /* the author of the source's word for the copy's byte k: a block's owner, or whoever last stored
     * it in other memory (a thread's stack, a global, a small block); no one when not known (a copy
     * out of memory another thread wrote is not the copier's work: L10_G7); a fill: the actor */
#define WC_AUTHOR(k) (!from || own ? actor : source > 0 ? wc_owner_at(source, (uintptr_t)from + (k)) \
                                                  : wc_noted((uintptr_t)from + (k)))
    if (bucket <= 0) { /* into other memory: each word's author noted */
        uintptr_t at = (uintptr_t)d;
        for (uintptr_t w = at / 8; w <= (at + size - 1) / 8; w++) {
            uintptr_t k = 8 * w < at ? 0 : 8 * w - at;
            int who = WC_AUTHOR(k);
            wc_note(&wc_seen, 8 * w < at ? at : 8 * w, 1, who ? who : HL_WC_SERIAL);
        }
    }
    if (serial) { /* the serial part's changes: each word whose author is the serial part, or no one known */
        long changed = 0;
        for (size_t at = 0; at < size; at += 8) {
            size_t end = size - at < 8 ? size : at + 8, k = at;
            while (k < end && to[k] == (from ? from[k] : (unsigned char)c)) k++;
            int who = k < end ? WC_AUTHOR(at) : -1;
            changed += who == 0 || who == HL_WC_SERIAL ? (long)(end - at) : 0;
        }
        atomic_fetch_add_explicit(&wc_serial_changed, changed, memory_order_relaxed);
    }
    if (bucket < 0 || (serial && bucket == 0)) return;
    if (bucket > 0 && atomic_load_explicit(&wc_owner[bucket], memory_order_acquire)) {
        /* each word of the block the copy covers: its value after the copy, and whose run (a copy:
         * each word keeps its author) */
        uintptr_t lo = atomic_load_explicit(&wc_lo[bucket], memory_order_relaxed), at = (uintptr_t)d;
        for (uintptr_t w = (at - lo) / 8; w <= (at + size - 1 - lo) / 8; w++) {
            uint64_t old = wc_word_at(bucket, w), now = old;
            unsigned char *bytes = (unsigned char *)&now;
            uintptr_t first = lo + 8 * w;
            for (int k = 0; k < 8; k++)
                if (first + k >= at && first + k < at + size)
                    bytes[k] = from ? from[first + k - at] : (unsigned char)c;
            uintptr_t read = first < at ? 0 : first - at; /* the source's byte for this word */
            int who = WC_AUTHOR(read);
            wc_change(bucket, w, old, now, who ? who : HL_WC_SERIAL, actor);
            if (site && now != old) wc_computed(bucket, w, who ? who : HL_WC_SERIAL);
        }
    }
#undef WC_AUTHOR
    if (serial) return;
    unsigned long changed = 0;
    for (size_t at = 0; at < size; at += 8) { /* by words of 8 bytes, as stores are counted */
        size_t end = size - at < 8 ? size : at + 8, k = at;
        while (k < end && to[k] == (from ? from[k] : (unsigned char)c)) k++;
        changed += k < end ? end - at : 0;
    }
    wc_credit(slot, bucket, changed);
}
extern void *__real_memcpy(void *, const void *, size_t) __attribute__((weak));
extern void *__real_memmove(void *, const void *, size_t) __attribute__((weak));
extern void *__real_memset(void *, int, size_t) __attribute__((weak));
void *__wrap_memcpy(void *d, const void *s, size_t n);
/* weak: a kernel's own watch of the same calls (race_bins.c, HL_WATCH_BINS) takes precedence */
__attribute__((weak)) void *__wrap_memcpy(void *d, const void *s, size_t n) {
    wc_bulk(__builtin_return_address(0), d, s, 0, n, 0);
    return __real_memcpy(d, s, n);
}
void *__wrap_memmove(void *d, const void *s, size_t n);
/* weak: a kernel's own watch of the same calls (race_bins.c, HL_WATCH_BINS) takes precedence */
__attribute__((weak)) void *__wrap_memmove(void *d, const void *s, size_t n) {
    wc_bulk(__builtin_return_address(0), d, s, 0, n, 0);
    return __real_memmove(d, s, n);
}
void *__wrap_memset(void *d, int c, size_t n);
/* weak: a kernel's own watch of the same calls (race_bins.c, HL_WATCH_BINS) takes precedence */
__attribute__((weak)) void *__wrap_memset(void *d, int c, size_t n) {
    wc_bulk(__builtin_return_address(0), d, NULL, c, n, 0);
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
            atomic_store(&wc_owner[b], __real_calloc(size / 8 + 1, sizeof(wc_word))); /* NULL: not owned */
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
 * a block whose owner map could not be made) and the bytes it wrote that another thread had
 * written ("echoed", wc_change); per heap block, a "serial_writes" record of the bytes whose last
 * change was the serial part's (a run of HL_WC_SERIAL: the master outside every parallel region,
 * "owned"), when any (a grid the master updates alone beside a decoy loop the team shares); and a
 * "serial_changed" record of the bytes the serial part changed anywhere (wc_serial_changed), when any */
static void write_shares(hl_ctx *ctx) {
    char line[260];
    int threads = atomic_load(&wc_threads), blocks = atomic_load(&wc_blocks);
    if (threads > HL_WC_THREADS) threads = HL_WC_THREADS;
    if (blocks > HL_WC_BUCKETS) blocks = HL_WC_BUCKETS;
    for (int b = 0; b < blocks; b++) {
        long owned[HL_WC_THREADS + 1] = {0}, computed[256] = {0}, serial = 0;
        wc_word *owner = b ? atomic_load(&wc_owner[b]) : NULL;
        uintptr_t words = owner ? atomic_load(&wc_words[b]) : 0;
        uintptr_t lo = b ? atomic_load(&wc_lo[b]) : 0;
        for (uintptr_t w = 0; w < words; w++) {
            owned[wc_owner_at(b, lo + 8 * w)] += 8;
            computed[owner[w].computed] += 8;
            serial += owner[w].runs && owner[w].who[owner[w].runs - 1] == HL_WC_SERIAL ? 8 : 0;
        }
        if (serial) {
            int n = snprintf(line, sizeof line,
                             "{\"rank\":%d,\"record\":\"serial_writes\",\"bucket\":%d,\"owned\":%ld}\n",
                             ctx->rank, b, serial);
            hl_append(ctx, line, (size_t)n);
        }
        _Atomic uint64_t *done = b ? NULL : atomic_load(&wc_done); /* other memory: its words' authors */
        for (long k = 0; done && k < HL_WC_SEEN; k++) computed[atomic_load_explicit(&done[k], memory_order_relaxed) & 0xff] += 8;
        computed[0] = 0;
        for (int t = 0; t < threads; t++) {
            long bytes = __atomic_load_n(&wc_changed[t][b], __ATOMIC_RELAXED);
            long echoed = __atomic_load_n(&wc_echoed[t][b], __ATOMIC_RELAXED);
            if (!bytes && !owned[t + 1] && !echoed && !computed[t + 1]) continue;
            int n = snprintf(line, sizeof line,
                             "{\"rank\":%d,\"record\":\"writes\",\"bucket\":%d,\"tid\":%ld,"
                             "\"changed\":%ld,\"owned\":%ld,\"echoed\":%ld,\"computed\":%ld}\n",
                             ctx->rank, b, atomic_load(&wc_tid[t]), bytes, owner ? owned[t + 1] : -1L, echoed,
                             (owner || !b) && F.update_sites_given ? computed[t + 1] : -1L);
            hl_append(ctx, line, (size_t)n);
        }
    }
    long serial = atomic_load(&wc_serial_changed);
    if (serial) {
        int n = snprintf(line, sizeof line, "{\"rank\":%d,\"record\":\"serial_changed\",\"bytes\":%ld}\n",
                         ctx->rank, serial);
        hl_append(ctx, line, (size_t)n);
    }
}

/* The C library's routines that write bytes the program chooses, which ThreadSanitizer does not
 * instrument (a fresh attacker's A8 K2, 5/5 twice, 2026-12-07: the master's sweep stored through
 * snprintf, 8 raw bytes an element, the grid then owned by the threads that first wrote it):
 * formatted output into memory is made in a buffer of the kit's, then counted as the calling
 * thread's copy of its own bytes; string copies count as memcpy of the bytes they copy; the
 * fortified variants (_FORTIFY_SOURCE) are the same. sscanf, which stores through the pointers
 * its format names, is refused at the build of a whole program (unit_checks). */
#include <stdarg.h>
extern int __real_vsnprintf(char *, size_t, const char *, va_list) __attribute__((weak));
static int wc_format(const void *caller, char *d, size_t n, const char *f, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int r = __real_vsnprintf(NULL, 0, f, ap);
    if (r >= 0 && n) {
        size_t size = (size_t)r + 1 < n ? (size_t)r + 1 : n;
        char small[512], *made = size <= sizeof small ? small : __real_malloc(size);
        if (made) {
            __real_vsnprintf(made, size, f, again);
            wc_bulk(caller, d, made, 0, size, 1);
            __real_memcpy(d, made, size);
            if (made != small) __real_free(made);
        } else
            r = __real_vsnprintf(d, n, f, again);
    }
    va_end(again);
    return r;
}
#define WC_FORMAT(d, n, f)                                                                         \
    va_list ap;                                                                                    \
    va_start(ap, f);                                                                               \
    int r = wc_format(__builtin_return_address(0), d, n, f, ap);                                   \
    va_end(ap);                                                                                    \
    return r
int __wrap_snprintf(char *d, size_t n, const char *f, ...);
__attribute__((weak)) int __wrap_snprintf(char *d, size_t n, const char *f, ...) { WC_FORMAT(d, n, f); }
int __wrap_sprintf(char *d, const char *f, ...);
__attribute__((weak)) int __wrap_sprintf(char *d, const char *f, ...) { WC_FORMAT(d, (size_t)-1 >> 1, f); }
int __wrap___snprintf_chk(char *d, size_t n, int flag, size_t room, const char *f, ...);
__attribute__((weak)) int __wrap___snprintf_chk(char *d, size_t n, int flag, size_t room, const char *f, ...) {
    (void)flag;
    if (n > room) __builtin_trap(); /* the fortified call's own check */
    WC_FORMAT(d, n, f);
}
int __wrap___sprintf_chk(char *d, int flag, size_t room, const char *f, ...);
__attribute__((weak)) int __wrap___sprintf_chk(char *d, int flag, size_t room, const char *f, ...) {
    (void)flag;
    WC_FORMAT(d, room, f);
}
#undef WC_FORMAT
int __wrap_vsnprintf(char *d, size_t n, const char *f, va_list ap);
__attribute__((weak)) int __wrap_vsnprintf(char *d, size_t n, const char *f, va_list ap) {
    return wc_format(__builtin_return_address(0), d, n, f, ap);
}
int __wrap_vsprintf(char *d, const char *f, va_list ap);
__attribute__((weak)) int __wrap_vsprintf(char *d, const char *f, va_list ap) {
    return wc_format(__builtin_return_address(0), d, (size_t)-1 >> 1, f, ap);
}
int __wrap___vsnprintf_chk(char *d, size_t n, int flag, size_t room, const char *f, va_list ap);
__attribute__((weak)) int __wrap___vsnprintf_chk(char *d, size_t n, int flag, size_t room, const char *f, va_list ap) {
    (void)flag;
    if (n > room) __builtin_trap();
    return wc_format(__builtin_return_address(0), d, n, f, ap);
}
int __wrap___vsprintf_chk(char *d, int flag, size_t room, const char *f, va_list ap);
__attribute__((weak)) int __wrap___vsprintf_chk(char *d, int flag, size_t room, const char *f, va_list ap) {
    (void)flag;
    return wc_format(__builtin_return_address(0), d, room, f, ap);
}
/* string copies: the bytes copied (and a strncpy's zero fill) as memcpy's and memset's */
static char *wc_copy(const void *caller, char *d, const char *s, size_t len, size_t fill) {
    wc_bulk(caller, d, s, 0, len, 0);
    __real_memmove(d, s, len);
    if (fill > len) {
        wc_bulk(caller, d + len, NULL, 0, fill - len, 0);
        __real_memset(d + len, 0, fill - len);
    }
    return d;
}
char *__wrap_strcpy(char *d, const char *s);
__attribute__((weak)) char *__wrap_strcpy(char *d, const char *s) {
    return wc_copy(__builtin_return_address(0), d, s, strlen(s) + 1, 0);
}
char *__wrap_strncpy(char *d, const char *s, size_t n);
__attribute__((weak)) char *__wrap_strncpy(char *d, const char *s, size_t n) {
    return wc_copy(__builtin_return_address(0), d, s, strnlen(s, n), n);
}
char *__wrap_strcat(char *d, const char *s);
__attribute__((weak)) char *__wrap_strcat(char *d, const char *s) {
    wc_copy(__builtin_return_address(0), d + strlen(d), s, strlen(s) + 1, 0);
    return d;
}
char *__wrap_strncat(char *d, const char *s, size_t n);
__attribute__((weak)) char *__wrap_strncat(char *d, const char *s, size_t n) {
    size_t len = strnlen(s, n), at = strlen(d);
    wc_copy(__builtin_return_address(0), d + at, s, len, 0);
    wc_copy(__builtin_return_address(0), d + at + len, "", 1, 0);
    return d;
}
char *__wrap___strcpy_chk(char *d, const char *s, size_t room);
__attribute__((weak)) char *__wrap___strcpy_chk(char *d, const char *s, size_t room) {
    size_t len = strlen(s) + 1;
    if (len > room) __builtin_trap();
    return wc_copy(__builtin_return_address(0), d, s, len, 0);
}
char *__wrap___strncpy_chk(char *d, const char *s, size_t n, size_t room);
__attribute__((weak)) char *__wrap___strncpy_chk(char *d, const char *s, size_t n, size_t room) {
    if (n > room) __builtin_trap();
    return wc_copy(__builtin_return_address(0), d, s, strnlen(s, n), n);
}
char *__wrap___strcat_chk(char *d, const char *s, size_t room);
__attribute__((weak)) char *__wrap___strcat_chk(char *d, const char *s, size_t room) {
    size_t at = strlen(d), len = strlen(s) + 1;
    if (at + len > room) __builtin_trap();
    wc_copy(__builtin_return_address(0), d + at, s, len, 0);
    return d;
}
/* the fortified copies and fills (_FORTIFY_SOURCE) */
void *__wrap___memcpy_chk(void *d, const void *s, size_t n, size_t room);
__attribute__((weak)) void *__wrap___memcpy_chk(void *d, const void *s, size_t n, size_t room) {
    if (n > room) __builtin_trap();
    wc_bulk(__builtin_return_address(0), d, s, 0, n, 0);
    return __real_memcpy(d, s, n);
}
void *__wrap___memmove_chk(void *d, const void *s, size_t n, size_t room);
__attribute__((weak)) void *__wrap___memmove_chk(void *d, const void *s, size_t n, size_t room) {
    if (n > room) __builtin_trap();
    wc_bulk(__builtin_return_address(0), d, s, 0, n, 0);
    return __real_memmove(d, s, n);
}
void *__wrap___memset_chk(void *d, int c, size_t n, size_t room);
__attribute__((weak)) void *__wrap___memset_chk(void *d, int c, size_t n, size_t room) {
    if (n > room) __builtin_trap();
    wc_bulk(__builtin_return_address(0), d, NULL, c, n, 0);
    return __real_memset(d, c, n);
}
