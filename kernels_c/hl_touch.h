/* hl_touch.h: which thread first touched each page of an array, on any machine (one NUMA node
 * too, where move_pages(2) can only answer "node 0").
 *
 * A kernel includes it after hybridlab.h and asks for a traced array instead of malloc:
 *
 *     double *a = hl_touch_alloc(ctx, n * sizeof *a);   NULL with ctx->error set on failure
 *     #pragma omp parallel for schedule(static)          the initialisation being studied
 *     for (long i = 0; i < n; i++) a[i] = 0.0;
 *     hl_touch_emit(ctx, a, "a");                        the records; a stays usable
 *     ...
 *     hl_touch_free(a);                                  (or left to the end of the kernel)
 *
 * How: hl_touch_alloc maps fresh anonymous pages (transparent huge pages off, so one page is one
 * base page) with no access at all (PROT_NONE) and installs a SIGSEGV handler (SA_SIGINFO). The
 * first access to a page faults; the handler records the OpenMP thread (omp_get_thread_num), the
 * OS thread (gettid: a nested team's thread 1 is another OS thread than the outer team's thread
 * 1) and CPU of the access, opens the page (mprotect) and returns, and the access runs again, now
 * for real: the page is placed by the kernel exactly as without the tracer (first touch on the
 * writing thread's node). A read opens the page for reading only, so the first write faults once
 * more and is recorded too: the "writer" is the thread whose write placed the page (a read of a
 * fresh page maps the shared zero page and places nothing). On x86-64 the fault's error code
 * says read or write; elsewhere a page's first fault counts as a read, its second as the write.
 *
 * Written pages are sealed again (read-only) once the OS thread that opened them has opened
 * HL_TOUCH_OPEN_PAGES others since (each OS thread keeps only its latest pages open): a later
 * write to a sealed page faults once more, and a write there by another OS thread than the
 * page's writer is recorded as the page's "rewriter" (a serial pass over values another thread's
 * write placed). A write by the writer itself just opens the page again. A page stays open to
 * every thread while it is among some thread's latest: writes into it then are not seen.
 *
 * A kernel that must see every write (lab 05's init_arrays: a master writing the values of pages
 * its workers opened a moment before, a few at a time, left no trace through the window) sets
 * hl_touch_watch(1) before the accesses: on x86-64 a watched page, once written, is then
 * opened for one instruction of the thread that faulted (the trap flag set in its context; the
 * SIGTRAP after that instruction seals the page again), so every write to it faults and a write
 * by another OS thread than the page's writer is its rewriter. Every page is watched (one in
 * HL_TOUCH_WATCH_ONE_IN of each array, drawn when it is allocated, 1 by default): with one page
 * in 8 watched, a code timed a second write to each page it placed (a watched page's faults,
 * tens of microseconds; an open page's store, nanoseconds), wrote the slow ones itself and let
 * the master write all the others while they were still open (attacker E). A plain store
 * instruction (mov, movnti, SSE2's stores of an xmm register: hl_touch_plain_store) is not
 * stepped: the handler opens the page, stores what the instruction would, seals the page and
 * skips the instruction (the debug trap after a stepped instruction was most of the cost: half
 * of the traced runs' CPU samples); memcpy's string stores are done in the handler too; any other
 * write (a read-modify-write, a store across a page's end, VEX) is stepped. Each watched write
 * still costs a signal and two mprotect calls (lab 05's hidden test, three runs of 76 pages a
 * rank written by scalar stores: 1.1 CPU s, 4.0 when every store was stepped). What is left:
 * another thread's store that lands while the page is open for its writer's one store (a race
 * the code cannot see coming; a store that misses it is recorded). Elsewhere (not x86-64) the
 * window above stands.
 *
 * The tracer's state is out of the kernel's reach, not only out of its names' (static): the
 * table of traced arrays, the watch switch and the saved signal actions live in pages of their
 * own that are read-only except while the kit's functions (alloc, emit, free, hl_touch_watch)
 * change them, and each array's book of pages (toucher, writer, rewriter) is a read-only mapping
 * that the handler opens, under a lock, only for the one page of the book it claims a record in,
 * and closes again (a claim happens once per page and field: a few per page). Code of the kernel
 * that scans memory for the records and writes them (attacker H's H05_forge erased every page's
 * rewriter) faults on the read-only page: not the tracer's fault, so the run crashes. The faults
 * count and the openers' latest pages below stay writable (not evidence; what is left: a thread
 * that rewrites the one-instruction stepping entries of another thread in the moment between its
 * fault and its trap keeps that page open, a race).
 *
 * The handler is async-signal-safe (atomics, getcpu, gettid and mprotect only; no malloc, no
 * stdio).
 * A fault outside every traced array is not the tracer's: the handler puts the previous SIGSEGV
 * action back and returns, the instruction faults again and that action runs (hybridlab.h's
 * crash report, so a NULL dereference is still a KernelCrash naming the rank). hl_touch_emit
 * opens the whole array and, once no traced array remains armed, restores the previous action;
 * arrays still traced when hl_kernel returns are disarmed and unmapped by hl_run.
 *
 * Call hl_touch_alloc, hl_touch_emit and hl_touch_free from one thread, outside parallel regions
 * (they share one table); the accesses in between may come from any thread.
 *
 * Limits: at most HL_TOUCH_MAX_ARRAYS arrays at a time and HL_TOUCH_MAX_PAGES pages each (every
 * opened page may be its own mapping until neighbours merge; Linux allows about 65530). Until it
 * is emitted, hand a traced array only to user-space code: a system call reading a page that is
 * still closed (read(2) into it, MPI moving it with process_vm_readv) fails with EFAULT instead
 * of faulting. Faults are counted per page, so they also cost time: trace the initialisation,
 * not a timed loop.
 *
 * Records, one per run of consecutive pages with the same toucher, writer, rewriter, CPUs and
 * OS threads:
 *   "record":"touch","array":NAME,"first":P,"count":N,"toucher":T,"toucher_cpu":C,
 *   "writer":W,"writer_cpu":D,"writer_tid":I,"rewriter":R,"rewriter_tid":J
 *                                      (-1: no thread touched / wrote / rewrote these pages)
 * and one per array:
 *   "record":"touch_array","array":NAME,"pages":P,"page_bytes":B,"touched":K,"written":W,
 *   "faults":F,"stepped":S          (faults, and those that stepped one instruction: not evidence)
 * hybridlab.memory.tables.page_owners reads them into one row per page.
 */
#ifndef HL_TOUCH_H
#define HL_TOUCH_H

#include "hybridlab.h"

#include <sys/mman.h>
#include <ucontext.h>

#ifndef HL_TOUCH_MAX_ARRAYS
#define HL_TOUCH_MAX_ARRAYS 8
#endif
#ifndef HL_TOUCH_MAX_PAGES
#define HL_TOUCH_MAX_PAGES 32768
#endif
#ifndef HL_TOUCH_OPEN_PAGES
#define HL_TOUCH_OPEN_PAGES 16 /* written pages each OS thread keeps open before sealing */
#endif
#define HL_TOUCH_OPENERS 64 /* OS threads (by tid, modulo) with their own latest pages */

typedef struct {
    int toucher, toucher_cpu, writer, writer_cpu; /* -1 until a thread touches / writes it */
    int writer_tid;                               /* the writer's OS thread (gettid) */
    int rewriter, rewriter_tid; /* the first later write by another OS thread, -1 for none */
} hl_touch_page;

typedef struct {
    char *base;
    size_t bytes, page_bytes, pages;
    hl_touch_page *page; /* its own mapping, read-only but while the handler claims in it */
    int armed;
    unsigned long seed; /* which pages are watched (hl_touch_watch_writes) */
} hl_touch_array;

#if defined(__x86_64__) && defined(REG_EFL)
#define HL_TOUCH_STEP 1
#define HL_TOUCH_TRAP_FLAG 0x100L
#endif
#define HL_TOUCH_GUARD_BYTES 65536 /* a multiple of any page size: the guarded state's own pages */

/* What decides the records: read-only outside the kit's functions (hl_touch_state_open) */
typedef struct {
    hl_touch_array arrays[HL_TOUCH_MAX_ARRAYS];
    struct sigaction previous; /* the SIGSEGV action before the first armed array */
    int installed;
    /* 1: every write to a watched page seen (open for one instruction of its writer; x86-64) */
    int watch_writes;
#ifdef HL_TOUCH_STEP
    struct sigaction previous_trap; /* the SIGTRAP action before */
    int trap_installed;
#endif
} hl_touch_state;

static union {
    hl_touch_state s;
    char pad[(sizeof(hl_touch_state) + HL_TOUCH_GUARD_BYTES - 1) / HL_TOUCH_GUARD_BYTES *
             HL_TOUCH_GUARD_BYTES];
} hl_touch_guarded __attribute__((aligned(HL_TOUCH_GUARD_BYTES)));
#define hl_touch_arrays (hl_touch_guarded.s.arrays)
#define hl_touch_previous (hl_touch_guarded.s.previous)
#define hl_touch_installed (hl_touch_guarded.s.installed)
#define hl_touch_watch_writes (hl_touch_guarded.s.watch_writes)
#define hl_touch_previous_trap (hl_touch_guarded.s.previous_trap)
#define hl_touch_trap_installed (hl_touch_guarded.s.trap_installed)
/* held while the state or a book is open for writing (the handler and the kit's functions); a
 * kernel that writes it can only stall or crash its own run */
static int hl_touch_guard_lock;
static long hl_touch_faults[HL_TOUCH_MAX_ARRAYS]; /* faults per array slot (not evidence) */
static long hl_touch_steps[HL_TOUCH_MAX_ARRAYS]; /* instructions stepped per slot (not evidence) */

/* Each opener's latest written pages: (array slot << 32 | page) + 1, 0 for none. */
static long hl_touch_open[HL_TOUCH_OPENERS][HL_TOUCH_OPEN_PAGES];
static unsigned long hl_touch_opened[HL_TOUCH_OPENERS];
#ifndef HL_TOUCH_WATCH_ONE_IN
#define HL_TOUCH_WATCH_ONE_IN 1 /* every page (a larger N: one page in N, observable by a clock) */
#endif
#ifdef HL_TOUCH_STEP
/* The pages each opener (OS thread by tid, modulo) opened for its next instruction, as
 * hl_touch_open's entries, 0 for none: two, for a store across a page boundary. */
static long hl_touch_stepping[HL_TOUCH_OPENERS][2];
#endif

static inline void hl_touch_guard_take(void) {
    while (__atomic_exchange_n(&hl_touch_guard_lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&hl_touch_guard_lock, __ATOMIC_RELAXED)) { /* spin */ }
}

static inline void hl_touch_guard_give(void) {
    __atomic_store_n(&hl_touch_guard_lock, 0, __ATOMIC_RELEASE);
}

/* The guarded state opened for writing by the kit's functions (one thread, outside parallel
 * regions), and closed again: between the two, only the kit writes it. */
static inline void hl_touch_state_open(void) {
    hl_touch_guard_take();
    mprotect(&hl_touch_guarded, sizeof hl_touch_guarded, PROT_READ | PROT_WRITE);
}

static inline void hl_touch_state_close(void) {
    mprotect(&hl_touch_guarded, sizeof hl_touch_guarded, PROT_READ);
    hl_touch_guard_give();
}

/* hl_touch_watch_writes set (1) or cleared (0) before or after the accesses it is about. */
static inline void hl_touch_watch(int on) {
    hl_touch_state_open();
    hl_touch_watch_writes = on;
    hl_touch_state_close();
}

static inline void hl_touch_say(const char *msg) {
    if (write(STDERR_FILENO, msg, strlen(msg)) < 0) { /* nothing more can be done */ }
}

/* Whether the fault that brought `context` was a write. */
static inline int hl_touch_is_write(void *context, const hl_touch_page *p) {
#if defined(__x86_64__) && defined(REG_ERR)
    (void)p;
    return (((ucontext_t *)context)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)context;
    return __atomic_load_n(&p->toucher, __ATOMIC_SEQ_CST) >= 0;
#endif
}

static inline void hl_touch_claim(int *who, int *where, int me, int cpu) {
    int none = -1;
    if (__atomic_compare_exchange_n(who, &none, me, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        __atomic_store_n(where, cpu, __ATOMIC_SEQ_CST);
}

/* Whether page `index` of `r` is one of its watched pages (splitmix64 of the seed and index). */
static inline int hl_touch_watched(const hl_touch_array *r, size_t index) {
    unsigned long z = r->seed + (unsigned long)(index + 1) * 0x9e3779b97f4a7c15UL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
    return (z ^ (z >> 31)) % HL_TOUCH_WATCH_ONE_IN == 0;
}

/* Seals an opened page again (read-only) when it is still armed. */
static inline void hl_touch_seal(long opened) {
    if (opened <= 0) return;
    long slot = (opened - 1) >> 32, index = (opened - 1) & 0xffffffffL;
    if (slot >= HL_TOUCH_MAX_ARRAYS) return;
    hl_touch_array *r = &hl_touch_arrays[slot];
    if (__atomic_load_n(&r->armed, __ATOMIC_SEQ_CST) && (size_t)index < r->pages)
        mprotect(r->base + (size_t)index * r->page_bytes, r->page_bytes, PROT_READ);
}

#ifdef HL_TOUCH_STEP
/* Whether [lo, hi) meets an armed traced array. */
static inline int hl_touch_traced(const char *lo, const char *hi) {
    for (int i = 0; i < HL_TOUCH_MAX_ARRAYS; i++) {
        const hl_touch_array *r = &hl_touch_arrays[i];
        if (__atomic_load_n(&r->armed, __ATOMIC_SEQ_CST) && lo < r->base + r->bytes && hi > r->base)
            return 1;
    }
    return 0;
}

/* A `rep movs`/`rep stos` (memcpy, memset: glibc's string stores) storing into watched page
 * `page` of `page_bytes`: stepped, it would trap once per byte (thousands of signals a page, a
 * right answer copying its rows with memcpy ran past its time limit). Its iterations that store
 * into this page are done here instead, by the thread that faulted (the write is its own: the
 * page's writer or rewriter is already recorded), the page sealed again after them and the
 * registers moved on as the instruction would; the rest of the instruction runs for real and
 * faults on the next closed page. 1 when done; 0 (step it) for any other instruction, a backward
 * copy, an element across the page's end, or a source in a traced array. */
static inline int hl_touch_string_store(void *context, char *page, size_t page_bytes) {
    greg_t *g = ((ucontext_t *)context)->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)g[REG_RIP];
    int rep = 0, wide = 0, k = 0;
    for (; k < 4; k++) {
        if (ip[k] == 0xf3) rep = 1;
        else if ((ip[k] & 0xf0) == 0x40) wide = (ip[k] & 8) != 0;
        else break;
    }
    unsigned char op = ip[k];
    if (!rep || (op != 0xa4 && op != 0xa5 && op != 0xaa && op != 0xab) || (g[REG_EFL] & 0x400))
        return 0;
    size_t size = (op == 0xa4 || op == 0xaa) ? 1 : wide ? 8 : 4;
    char *dst = (char *)g[REG_RDI];
    unsigned long count = (unsigned long)g[REG_RCX];
    if (dst < page || dst >= page + page_bytes || count == 0) return 0;
    unsigned long n = (unsigned long)(page + page_bytes - dst) / size;
    if (n > count) n = count;
    if (n == 0) return 0;
    const char *src = (const char *)g[REG_RSI];
    int copy = op == 0xa4 || op == 0xa5;
    if (copy && hl_touch_traced(src, src + n * size)) return 0;
    if (mprotect(page, page_bytes, PROT_READ | PROT_WRITE) != 0) return 0;
    volatile char *to = dst;
    for (unsigned long b = 0; b < n * size; b++)
        to[b] = copy ? src[b] : (char)((unsigned long)g[REG_RAX] >> (8 * (b % size)));
    mprotect(page, page_bytes, PROT_READ);
    g[REG_RDI] += (greg_t)(n * size);
    if (copy) g[REG_RSI] += (greg_t)(n * size);
    g[REG_RCX] -= (greg_t)n;
    return 1;
}

/* The general registers by their x86 number (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8-r15). */
static const int hl_touch_gpr[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                                     REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                     REG_R12, REG_R13, REG_R14, REG_R15};

/* A plain store instruction into watched page `page` of `page_bytes`, done here by the thread
 * that faulted instead of opening the page for that one instruction and trapping after it (the
 * trap is most of a watched write's cost: on a virtual machine the debug exception alone took
 * half of lab 05's traced runs' CPU): the page opened, the bytes the instruction would store
 * written, the page sealed again and the instruction skipped. The store is the same (its writer
 * or rewriter is already recorded), and the page is open for less time than one stepped
 * instruction. The stores done: mov r/m, r (88, 89), mov r/m, imm (c6 /0, c7 /0), movnti, and
 * SSE2's stores of an xmm register (movups/movupd/movss/movsd 0f 11, movaps/movapd 0f 29,
 * movlps/movlpd 0f 13, movhps/movhpd 0f 17, movdqa/movdqu 0f 7f, movq 66 0f d6, movd/movq 66
 * 0f 7e, movntps/pd 0f 2b, movntdq 66 0f e7), with REX and any ModRM/SIB address; one wholly
 * inside the page whose address is the fault's. 1 when done; 0 (step it) for anything else:
 * another instruction or prefix (a segment, lock, address size, VEX), an address the fault
 * does not match, a store across the page's end, a misaligned aligned store (the instruction's
 * own fault then). */
static inline int hl_touch_plain_store(void *context, const char *fault, char *page,
                                       size_t page_bytes) {
    ucontext_t *uc = (ucontext_t *)context;
    greg_t *g = uc->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)g[REG_RIP];
    int k = 0, p66 = 0, pf2 = 0, pf3 = 0, rex = 0;
    for (; k < 3; k++) {
        if (ip[k] == 0x66) p66++;
        else if (ip[k] == 0xf2) pf2++;
        else if (ip[k] == 0xf3) pf3++;
        else break;
    }
    if (p66 > 1 || pf2 > 1 || pf3 > 1 || pf2 + pf3 > 1) return 0;
    if ((ip[k] & 0xf0) == 0x40) rex = ip[k++];
    int wide = (rex & 8) != 0, op = ip[k++];
    enum { GPR, IMM, XMM } from;
    size_t size = 0, align = 1, high = 0; /* high: the byte of the xmm register stored first */
    int imm_bytes = 0;
    if (op == 0x88 || op == 0x89 || op == 0xc6 || op == 0xc7) {
        if (pf2 || pf3) return 0; /* xacquire/xrelease */
        size = (op == 0x88 || op == 0xc6) ? 1 : wide ? 8 : p66 ? 2 : 4;
        from = op <= 0x89 ? GPR : IMM;
        imm_bytes = op == 0xc6 ? 1 : op == 0xc7 ? (size == 2 ? 2 : 4) : 0;
        if (size == 1 && p66) return 0;
    } else if (op == 0x0f) {
        int op2 = ip[k++], none = !p66 && !pf2 && !pf3;
        from = XMM;
        if (op2 == 0x11) size = pf3 ? 4 : pf2 ? 8 : 16;
        else if (op2 == 0x29 && !pf2 && !pf3) size = 16, align = 16;
        else if ((op2 == 0x13 || op2 == 0x17) && !pf2 && !pf3) size = 8, high = op2 == 0x17 ? 8 : 0;
        else if (op2 == 0x7f && (p66 || pf3) && !pf2) size = 16, align = p66 && !pf3 ? 16 : 1;
        else if (op2 == 0xd6 && p66 && !pf2 && !pf3) size = 8;
        else if (op2 == 0x7e && p66 && !pf2 && !pf3) size = wide ? 8 : 4;
        else if (op2 == 0x2b && !pf2 && !pf3) size = 16, align = 16;
        else if (op2 == 0xe7 && p66 && !pf2 && !pf3) size = 16, align = 16;
        else if (op2 == 0xc3 && none) size = wide ? 8 : 4, from = GPR;
        else return 0;
        if (from == XMM && (p66 && (pf2 || pf3))) return 0;
    } else {
        return 0;
    }
    int modrm = ip[k++], mod = modrm >> 6, reg = ((modrm >> 3) & 7) | ((rex & 4) ? 8 : 0);
    int rm = modrm & 7;
    if (mod == 3 || (from == IMM && (reg & 7) != 0)) return 0;
    uintptr_t addr = 0;
    int rip_relative = 0;
    if (rm == 4) {
        int sib = ip[k++], index = ((sib >> 3) & 7) | ((rex & 2) ? 8 : 0), base = sib & 7;
        if (index != 4) addr += (uintptr_t)g[hl_touch_gpr[index]] << (sib >> 6);
        if (base == 5 && mod == 0) {
            int32_t d;
            memcpy(&d, ip + k, 4);
            k += 4;
            addr += (uintptr_t)(intptr_t)d;
        } else {
            addr += (uintptr_t)g[hl_touch_gpr[base | ((rex & 1) ? 8 : 0)]];
        }
    } else if (rm == 5 && mod == 0) {
        int32_t d;
        memcpy(&d, ip + k, 4);
        k += 4;
        addr = (uintptr_t)(intptr_t)d;
        rip_relative = 1;
    } else {
        addr = (uintptr_t)g[hl_touch_gpr[rm | ((rex & 1) ? 8 : 0)]];
    }
    if (mod == 1) addr += (uintptr_t)(intptr_t)(int8_t)ip[k++];
    else if (mod == 2) {
        int32_t d;
        memcpy(&d, ip + k, 4);
        k += 4;
        addr += (uintptr_t)(intptr_t)d;
    }
    unsigned char value[16];
    if (from == IMM) {
        int64_t imm = imm_bytes == 1 ? (int8_t)ip[k] : 0;
        if (imm_bytes == 2) {
            int16_t v;
            memcpy(&v, ip + k, 2);
            imm = v;
        } else if (imm_bytes == 4) {
            int32_t v;
            memcpy(&v, ip + k, 4);
            imm = v; /* sign-extended for a 64-bit store */
        }
        k += imm_bytes;
        memcpy(value, &imm, 8);
    } else if (from == GPR) {
        uint64_t v;
        if (size == 1 && !rex && reg >= 4) /* ah, ch, dh, bh */
            v = (uint64_t)g[hl_touch_gpr[reg - 4]] >> 8;
        else
            v = (uint64_t)g[hl_touch_gpr[reg]];
        memcpy(value, &v, 8);
    } else {
        if (!uc->uc_mcontext.fpregs) return 0;
        memcpy(value, uc->uc_mcontext.fpregs->_xmm[reg].element, 16);
    }
    if (rip_relative) addr += (uintptr_t)g[REG_RIP] + (uintptr_t)k;
    char *to = (char *)addr;
    if (k > 15 || to < page || to + size > page + page_bytes || fault < to || fault >= to + size ||
        addr % align != 0)
        return 0;
    if (mprotect(page, page_bytes, PROT_READ | PROT_WRITE) != 0) return 0;
    switch (size) { /* one store of the instruction's width where it has one */
    case 1: *(volatile uint8_t *)to = value[0]; break;
    case 2: { uint16_t v; memcpy(&v, value, 2); *(volatile uint16_t *)to = v; break; }
    case 4: { uint32_t v; memcpy(&v, value, 4); *(volatile uint32_t *)to = v; break; }
    case 8: { uint64_t v; memcpy(&v, value + high, 8); *(volatile uint64_t *)to = v; break; }
    default:
        for (size_t b = 0; b < size; b++) ((volatile unsigned char *)to)[b] = value[b];
    }
    mprotect(page, page_bytes, PROT_READ);
    g[REG_RIP] += k;
    return 1;
}
#endif

/* The claims of a fault on page record p (toucher; writer, or rewriter when another OS thread
 * wrote it first), made with the one page of the book that holds p open for writing, under the
 * lock; nothing opened when no claim is left to make (the record's fields are set once each). */
static inline void hl_touch_book_claims(hl_touch_array *r, hl_touch_page *p, int me, int tid,
                                        int wrote) {
    int wtid = __atomic_load_n(&p->writer_tid, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&p->toucher, __ATOMIC_SEQ_CST) >= 0 &&
        !(wrote && (wtid < 0 || (wtid != tid && __atomic_load_n(&p->rewriter_tid, __ATOMIC_SEQ_CST) < 0))))
        return;
    unsigned ucpu = 0; /* the CPU of the access: asked only when a claim may be made */
    syscall(SYS_getcpu, &ucpu, NULL, NULL);
    int cpu = (int)ucpu;
    uintptr_t page = (uintptr_t)r->page_bytes;
    char *lo = (char *)((uintptr_t)p & ~(page - 1));
    char *hi = (char *)(((uintptr_t)(p + 1) + page - 1) & ~(page - 1));
    hl_touch_guard_take();
    mprotect(lo, (size_t)(hi - lo), PROT_READ | PROT_WRITE);
    hl_touch_claim(&p->toucher, &p->toucher_cpu, me, cpu);
    if (wrote) {
        int none = -1;
        if (__atomic_compare_exchange_n(&p->writer_tid, &none, tid, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST)) {
            __atomic_store_n(&p->writer_cpu, cpu, __ATOMIC_SEQ_CST);
            __atomic_store_n(&p->writer, me, __ATOMIC_SEQ_CST);
        } else if (none != tid) { /* a sealed page written by another OS thread */
            hl_touch_claim(&p->rewriter_tid, &p->rewriter, tid, me);
        }
    }
    mprotect(lo, (size_t)(hi - lo), PROT_READ);
    hl_touch_guard_give();
}

static void hl_touch_on_fault(int sig, siginfo_t *info, void *context) {
    char *addr = info->si_addr;
    (void)sig;
    for (int i = 0; i < HL_TOUCH_MAX_ARRAYS; i++) {
        hl_touch_array *r = &hl_touch_arrays[i];
        if (!__atomic_load_n(&r->armed, __ATOMIC_SEQ_CST) || addr < r->base ||
            addr >= r->base + r->bytes)
            continue;
        size_t index = (size_t)(addr - r->base) / r->page_bytes;
        hl_touch_page *p = &r->page[index];
        int tid = (int)syscall(SYS_gettid);
        int me = omp_get_thread_num(), wrote = hl_touch_is_write(context, p);
        hl_touch_book_claims(r, p, me, tid, wrote);
        int open = __atomic_load_n(&p->writer_tid, __ATOMIC_SEQ_CST) >= 0;
        int prot = open ? PROT_READ | PROT_WRITE : PROT_READ;
        __atomic_fetch_add(&hl_touch_faults[i], 1, __ATOMIC_SEQ_CST);
#ifdef HL_TOUCH_STEP
        if (open && wrote && __atomic_load_n(&hl_touch_watch_writes, __ATOMIC_SEQ_CST) &&
            hl_touch_watched(r, index) &&
            hl_touch_string_store(context, r->base + index * r->page_bytes, r->page_bytes))
            return;
        if (open && __atomic_load_n(&hl_touch_watch_writes, __ATOMIC_SEQ_CST) &&
            hl_touch_watched(r, index)) {
            greg_t *flags = &((ucontext_t *)context)->uc_mcontext.gregs[REG_EFL];
            long *step = hl_touch_stepping[(unsigned)tid % HL_TOUCH_OPENERS];
            int second = (*flags & HL_TOUCH_TRAP_FLAG) != 0; /* the same instruction again */
            if (wrote && !second && __atomic_load_n(&step[0], __ATOMIC_SEQ_CST) == 0 &&
                __atomic_load_n(&step[1], __ATOMIC_SEQ_CST) == 0 &&
                hl_touch_plain_store(context, addr, r->base + index * r->page_bytes,
                                     r->page_bytes))
                return;
            /* open for this one instruction: the trap after it seals the page again */
            long mine = ((long)i << 32 | (long)index) + 1;
            __atomic_fetch_add(&hl_touch_steps[i], 1, __ATOMIC_SEQ_CST);
            for (int k = second; k < 2; k++) {
                long old = __atomic_exchange_n(&step[k], k == second ? mine : 0, __ATOMIC_SEQ_CST);
                if (old != mine && old != step[0]) hl_touch_seal(old);
            }
            *flags |= HL_TOUCH_TRAP_FLAG;
        } else
#endif
        if (open) { /* among this OS thread's latest pages; its oldest one is sealed */
            unsigned opener = (unsigned)tid % HL_TOUCH_OPENERS;
            unsigned long k = __atomic_fetch_add(&hl_touch_opened[opener], 1, __ATOMIC_SEQ_CST);
            long mine = ((long)i << 32 | (long)index) + 1;
            long old = __atomic_exchange_n(&hl_touch_open[opener][k % HL_TOUCH_OPEN_PAGES], mine,
                                           __ATOMIC_SEQ_CST);
            if (old != mine) hl_touch_seal(old);
        }
        if (mprotect(r->base + index * r->page_bytes, r->page_bytes, prot) == 0) return;
        hl_touch_say("hybridlab: hl_touch could not open a page (mprotect failed: too many "
                     "mappings? trace fewer pages)\n");
        break;
    }
    /* Not the tracer's fault (or it cannot go on): the previous action takes the repeat. */
    sigaction(SIGSEGV, &hl_touch_previous, NULL);
}

#ifdef HL_TOUCH_STEP
/* The trap after the one instruction a page was opened for: seal it again, stop stepping. */
static void hl_touch_on_trap(int sig, siginfo_t *info, void *context) {
    (void)sig;
    (void)info;
    int tid = (int)syscall(SYS_gettid);
    long *step = hl_touch_stepping[(unsigned)tid % HL_TOUCH_OPENERS];
    ((ucontext_t *)context)->uc_mcontext.gregs[REG_EFL] &= ~HL_TOUCH_TRAP_FLAG;
    for (int k = 0; k < 2; k++) hl_touch_seal(__atomic_exchange_n(&step[k], 0, __ATOMIC_SEQ_CST));
}
#endif

/* A fresh traced array of at least `bytes` (whole pages, none touched yet); NULL with ctx->error
 * set when it cannot be made. Free it with hl_touch_free (hl_run frees what is left). */
static inline void *hl_touch_alloc(hl_ctx *ctx, size_t bytes);

/* Stops tracing `ptr` (every page opened for reading and writing) and emits its records under
 * `name`; 0, or -1 with ctx->error set when ptr is not a traced array. */
static inline int hl_touch_emit(hl_ctx *ctx, void *ptr, const char *name);

/* Unmaps a traced array (emitted or not). */
static inline void hl_touch_free(void *ptr);

/* The traced array that starts at `ptr` (NULL: a free slot), or NULL. */
static inline hl_touch_array *hl_touch_find(const void *ptr) {
    for (int i = 0; i < HL_TOUCH_MAX_ARRAYS; i++)
        if (hl_touch_arrays[i].base == ptr) return &hl_touch_arrays[i];
    return NULL;
}

/* Opens every page of `r` and, when no array is armed any more, restores the SIGSEGV action. */
static inline void hl_touch_disarm(hl_touch_array *r) {
    if (!r->armed) return;
    hl_touch_state_open();
    __atomic_store_n(&r->armed, 0, __ATOMIC_SEQ_CST);
    mprotect(r->base, r->bytes, PROT_READ | PROT_WRITE);
    long slot = (long)(r - hl_touch_arrays); /* its pages leave the openers' latest */
    for (int o = 0; o < HL_TOUCH_OPENERS; o++)
        for (int k = 0; k < HL_TOUCH_OPEN_PAGES; k++)
            if (hl_touch_open[o][k] > 0 && (hl_touch_open[o][k] - 1) >> 32 == slot)
                hl_touch_open[o][k] = 0;
    int any = 0;
    for (int i = 0; i < HL_TOUCH_MAX_ARRAYS; i++) any |= hl_touch_arrays[i].armed;
    if (!any && hl_touch_installed) {
        sigaction(SIGSEGV, &hl_touch_previous, NULL);
        hl_touch_installed = 0;
    }
#ifdef HL_TOUCH_STEP
    for (int o = 0; o < HL_TOUCH_OPENERS; o++)
        for (int k = 0; k < 2; k++)
            if (hl_touch_stepping[o][k] > 0 && (hl_touch_stepping[o][k] - 1) >> 32 == slot)
                hl_touch_stepping[o][k] = 0;
    if (!any && hl_touch_trap_installed) {
        sigaction(SIGTRAP, &hl_touch_previous_trap, NULL);
        hl_touch_trap_installed = 0;
    }
#endif
    hl_touch_state_close();
}

static inline void hl_touch_free(void *ptr) {
    hl_touch_array *r = ptr ? hl_touch_find(ptr) : NULL;
    if (!r) return;
    hl_touch_disarm(r);
    munmap(r->base, r->bytes);
    munmap(r->page, r->pages * sizeof *r->page);
    hl_touch_state_open();
    memset(r, 0, sizeof *r);
    hl_touch_faults[r - hl_touch_arrays] = 0;
    hl_touch_steps[r - hl_touch_arrays] = 0;
    hl_touch_state_close();
}

/* hl_run calls it when hl_kernel returns: nothing traced outlives the kernel. */
static void hl_touch_free_all(void) {
    for (int i = 0; i < HL_TOUCH_MAX_ARRAYS; i++)
        if (hl_touch_arrays[i].base) hl_touch_free(hl_touch_arrays[i].base);
}

static inline void *hl_touch_alloc(hl_ctx *ctx, size_t bytes) {
    size_t page_bytes = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (bytes + page_bytes - 1) / page_bytes;
    if (pages == 0 || pages > HL_TOUCH_MAX_PAGES) {
        hl_fail(ctx, "hl_touch_alloc: %zu bytes are %zu pages; trace 1 to %d pages", bytes, pages,
                HL_TOUCH_MAX_PAGES);
        return NULL;
    }
    hl_touch_array *r = hl_touch_find(NULL);
    if (!r) {
        hl_fail(ctx, "hl_touch_alloc: at most %d traced arrays at a time", HL_TOUCH_MAX_ARRAYS);
        return NULL;
    }
    void *base = mmap(NULL, pages * page_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *book = mmap(NULL, pages * sizeof(hl_touch_page), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED || book == MAP_FAILED) {
        if (base != MAP_FAILED) munmap(base, pages * page_bytes);
        if (book != MAP_FAILED) munmap(book, pages * sizeof(hl_touch_page));
        hl_fail(ctx, "hl_touch_alloc: no memory for %zu pages", pages);
        return NULL;
    }
#ifdef MADV_NOHUGEPAGE
    madvise(base, pages * page_bytes, MADV_NOHUGEPAGE);
#endif
    unsigned long seed = 0;
    if (syscall(SYS_getrandom, &seed, sizeof seed, 0) != (long)sizeof seed)
        seed = (unsigned long)(hl_now() * 1e9) ^ (unsigned long)base;
    memset(book, 0xff, pages * sizeof(hl_touch_page)); /* every field -1 */
    mprotect(book, pages * sizeof(hl_touch_page), PROT_READ); /* the handler's claims open it */
    hl_touch_state_open();
    *r = (hl_touch_array){.base = base, .bytes = pages * page_bytes, .page_bytes = page_bytes,
                          .pages = pages, .page = book, .seed = seed};
    hl_touch_faults[r - hl_touch_arrays] = 0;
    hl_touch_steps[r - hl_touch_arrays] = 0;
    if (!hl_touch_installed) {
        struct sigaction act;
        memset(&act, 0, sizeof act);
        act.sa_sigaction = hl_touch_on_fault;
        act.sa_flags = SA_SIGINFO;
        sigemptyset(&act.sa_mask);
        sigaction(SIGSEGV, &act, &hl_touch_previous);
        hl_touch_installed = 1;
    }
#ifdef HL_TOUCH_STEP
    if (!hl_touch_trap_installed) {
        struct sigaction act;
        memset(&act, 0, sizeof act);
        act.sa_sigaction = hl_touch_on_trap;
        act.sa_flags = SA_SIGINFO;
        sigemptyset(&act.sa_mask);
        sigaction(SIGTRAP, &act, &hl_touch_previous_trap);
        hl_touch_trap_installed = 1;
    }
#endif
    hl_on_kernel_end = hl_touch_free_all;
    __atomic_store_n(&r->armed, 1, __ATOMIC_SEQ_CST);
    hl_touch_state_close();
    return base;
}

static inline int hl_touch_emit(hl_ctx *ctx, void *ptr, const char *name) {
    hl_touch_array *r = ptr ? hl_touch_find(ptr) : NULL;
    if (!r) return hl_fail(ctx, "hl_touch_emit(%s): not an array from hl_touch_alloc", name);
    hl_touch_disarm(r);
    long touched = 0, written = 0;
    for (size_t first = 0; first < r->pages;) {
        const hl_touch_page *p = &r->page[first];
        size_t end = first + 1;
        while (end < r->pages && memcmp(&r->page[end], p, sizeof *p) == 0) end++;
        if (p->toucher >= 0) touched += (long)(end - first);
        if (p->writer >= 0) written += (long)(end - first);
        hl_emit(ctx,
                "\"record\":\"touch\",\"array\":\"%s\",\"first\":%zu,\"count\":%zu,"
                "\"toucher\":%d,\"toucher_cpu\":%d,\"writer\":%d,\"writer_cpu\":%d,"
                "\"writer_tid\":%d,\"rewriter\":%d,\"rewriter_tid\":%d",
                name, first, end - first, p->toucher, p->toucher_cpu, p->writer, p->writer_cpu,
                p->writer_tid, p->rewriter, p->rewriter_tid);
        first = end;
    }
    hl_emit(ctx,
            "\"record\":\"touch_array\",\"array\":\"%s\",\"pages\":%zu,\"page_bytes\":%zu,"
            "\"touched\":%ld,\"written\":%ld,\"faults\":%ld,\"stepped\":%ld",
            name, r->pages, r->page_bytes, touched, written, hl_touch_faults[r - hl_touch_arrays],
            hl_touch_steps[r - hl_touch_arrays]);
    return 0;
}

#endif /* HL_TOUCH_H */
