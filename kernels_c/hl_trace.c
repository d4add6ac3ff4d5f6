/* hl_trace.c: the kit's tracer, compiled out of line into its own object and linked beside a
 * traced kernel (hybridlab.kernels.build, trace_mpi=True). Nothing here is in a student's unit: its
 * buffers, counters, clock origin and the run's key are static (no symbol anyone can name), every
 * other symbol is hidden (-fvisibility=hidden: not exported from the library), and what frames,
 * times and checks the records (the stream's file, the key, the origin, the records' hash) is on a
 * page that is read-only except while the tracer changes it (`sealed`, below).
 *
 * Entry points (declared by hl_mpi_trace.h, which redirects the MPI names to them):
 *   hl_traced_MPI_<name>   a student's unit (and a whole program): recorded with "student": 1
 *   hl_kit_MPI_<name>      the kit's own units: recorded with "student": 0
 * one pair per function of hl_trace_calls.h. Each takes the clock (CLOCK_MONOTONIC), calls the
 * real function, takes the clock again and keeps one entry: the call, start, end, OpenMP thread
 * number, whether it is MPI's main thread (MPI_Is_thread_main), whether it runs inside an active
 * parallel region, the nesting level, team size, the OS thread id, its CPU and NUMA node, and
 * how many other calls of the rank were inside MPI when it began; a Wait or Test keeps whether it
 * completed ("done"), a collective its communicator's size and members as MPI_COMM_WORLD ranks
 * ("comm_size", "comm"), a reduction the values and bytes it reduces ("count", "bytes"), a
 * collective that moves data what this rank sends each member ("count", "bytes": HL_TRACED_SENT
 * in hl_trace_calls.h), a point-to-point call its communicator's handle, tag and count
 * ("comm_id", "tag", "count"), its peer as an MPI_COMM_WORLD rank ("peer": HL_PEER_NONE for
 * MPI_PROC_NULL, HL_PEER_ANY for MPI_ANY_SOURCE) and the message's bytes ("bytes"; an
 * MPI_Sendrecv also "recv_peer", "recv_count", "recv_bytes"); a neighbourhood alltoall(v/w) the
 * bytes it sends to and receives from the neighbours that are ranks, summed ("bytes",
 * "recv_bytes": a Cartesian grid's MPI_PROC_NULL neighbours move none); a partitioned set-up its
 * partitions ("partitions", "count" being a partition's elements) and request ("request",
 * MPI_Request_c2f) and buffer's address ("buffer"), a non-blocking collective its communicator and the request it returns, an
 * MPI_Wait or MPI_Test the request it was given, an MPI_Waitall or MPI_Testall the requests
 * ("requests", "3,7"), an MPI_Waitany, _Waitsome, _Testany or _Testsome the ones it completed, an MPI_Pready, MPI_Pready_range, MPI_Pready_list or MPI_Parrived the partitions it names
 * ("partition" to "partition_last"; an MPI_Pready_list its list too, as "requests": "0,2") and the request, an MPI_Start the request, an
 * MPI_Startall the requests it was given ("requests"), an MPI_Request_free the request it frees
 * ("request"), a matched probe (MPI_Mprobe, MPI_Improbe) the message it matched and the receive
 * of that message (MPI_Mrecv, MPI_Imrecv) its source as "peer" (below, matched probes), and a
 * completion
 * how many of the non-blocking collectives it completed had their send buffer changed while in
 * flight ("send_changed", and the stores the debug registers counted there, "send_writes"; a
 * watched posting the registers it armed, "watch", and the bytes of its send buffer they cover,
 * "watched": below, a watched send buffer); a send its
 * buffer's address ("sent"),
 * a non-blocking send or receive the request it returned ("posted", MPI_Request_c2f), and with a
 * kernel's receive hook the call that completed a student's receive what its buffer held then
 * ("held"), and a call that posted or freed one the tracer cannot read ("unread": below, what a
 * student's receive held). The first
 * HL_TRACE_MAX_CALLS calls of a rank are kept in its buffer (a slot taken with an atomic counter;
 * the counters stay exact beyond it); a stream gets every call.
 *
 * Where entries go. With $HL_TRACE_STREAM (a folder; the harness sets it for every run it starts)
 * each call and each piece of computing is written, framed (below), to the rank's own file
 * <folder>/stream-<rank>.jsonl the moment it ends, one write(2) each: what is written cannot be
 * changed afterwards by code of the process, which has no way to open or write a file (a student's
 * unit: hybridlab.kernels.unit_checks). The stream's first line gives the clock's origin, taken
 * before any code of the run; the times of the lines after it are the clock's own
 * (CLOCK_MONOTONIC, asked for each record), so no value a cell could change in memory moves them
 * (the harness subtracts the origin: hybridlab.runs.records.parse_framed). Without it (a kernel
 * run in an engine) they are kept in per-rank buffers and emitted with the records.
 *
 * For the kit's units (hl_runtime.h, the kernels): hl_trace_reset() at the start of a run,
 * hl_trace_compute(start, end) for a kit helper's computing (one "computed" piece per call, with
 * the thread's OS id "tid": the harness joins a thread's pieces less than 20 us apart with no MPI
 * call of the thread between them into one interval, hybridlab.runs.records.join_pieces), hl_trace_rows(start, end, first, last) for a helper that
 * computes rows of a grid (lab 04's stencil_rows: a piece never joined, with its rows "first" to
 * "last"; -1 for other helpers), hl_trace_step(step) when the kernel starts an iteration (every call and
 * interval after it carries "step"; -1 before the first),
 * hl_trace_init_thread in place of MPI_Init_thread (MPI asked for MULTIPLE, the code shown the
 * level it asked for: see below), hl_trace_emit(ctx) for the records, and the records' integrity: hl_append tells
 * hl_trace_note every byte the kit appends to ctx->out; hl_trace_frame(ctx) checks that
 * ctx->out holds exactly those bytes and frames each line for the harness
 * (hybridlab.runs.records):
 *     @hl KEY RANK SEQ {json}           SEQ = 0, 1, ... per rank
 *     @hl KEY RANK end COUNT OK         COUNT lines before it; OK 0 when ctx->out was written by
 *                                       anything but the kit's hl_append
 * KEY is read from the file $HL_RECORD_KEY_FILE (the harness writes a fresh one per run; "-"
 * without it): a line of the program's output without the run's key is not a record. The key is
 * kept where no code of the process can read it (below, the run's key), and the harness refuses
 * a frame of a rank the run does not have, a record whose rank is not its frame's and a second
 * record of a kind a rank writes once (records.parse_framed).
 *
 * A whole program (hybridlab.slurm.jobs.build_program, -DHL_WHOLE_PROGRAM) has no hl_run:
 * hl_traced_MPI_Init_thread and hl_traced_MPI_Init start the trace and remember the level asked
 * for and the one provided (HL_PROVIDE_AT_MOST=<level> makes the program see at most that level),
 * and hl_traced_MPI_Finalize writes each rank's framed trace (a "meta" line, an "mpi_init"
 * record, its threads' CPU time and its peak memory (machine_use), each thread's iterations of each
 * loop of a runtime schedule (loop_shares), the CPUs each thread number of a team ran on
 * (thread_places), the calls and the summary) to
 * $HL_TRACE_DIR/trace-<rank>.jsonl before it finalises.
 */
#define HL_TRACE_OBJECT /* hl_runtime.h: no entry points or main in this object */
#include "hybridlab.h"
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "hl_stream_guard.h"

/* a kernel's look at a student's reduction: hl_trace_on_student_reduce */
typedef const void *(*hl_reduce_hook)(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                                      int root, MPI_Comm c);
void hl_trace_on_student_reduce(hl_reduce_hook hook);
/* a kernel's reading of what a student's receive buffer holds when the receive completes */
typedef int (*hl_receive_hook)(const void *buffer, long count, MPI_Datatype type, char *out,
                               size_t cap);
void hl_trace_on_student_receive(hl_receive_hook hook);
/* a kernel's hold on each of the student's calls once it has begun (lab 01 (b)) */
typedef void (*hl_hold_hook)(int (*inside)(void));
void hl_trace_on_student_hold(hl_hold_hook hook);

#ifndef HL_TRACE_MAX_CALLS
#define HL_TRACE_MAX_CALLS 32768
#endif
#define HL_TRACE_COMM_CHARS 96 /* a collective's members, "0,1,2,...", cut with "+" beyond */
#ifndef HL_TRACE_MAX_COMPUTE
#define HL_TRACE_MAX_COMPUTE 32768
#endif
#define HL_KEY_CHARS 64
#ifndef HL_TRACE_STREAM_BYTES /* a rank's stream at most (a call's line: about 700 bytes) */
#define HL_TRACE_STREAM_BYTES ((long)HL_TRACE_MAX_CALLS * 1024)
#endif
#define HL_PEER_NONE -1 /* a point-to-point peer MPI_PROC_NULL (or no peer) */
#define HL_PEER_ANY -2  /* a receive from MPI_ANY_SOURCE */

typedef struct {
    const char *call;
    double start, end;
    long tid;
    int thread, main, in_parallel, level, team, cpu, numa, concurrent, done, comm_size, student;
    int comm_id, tag; /* point to point: MPI_Comm_c2f of its communicator, its tag */
    long count;       /* point to point: elements (of a partition, for partitioned calls) */
    int peer;         /* point to point: destination or source as an MPI_COMM_WORLD rank */
    long bytes;       /* point to point: the message's bytes (all partitions) */
    int recv_peer;    /* MPI_Sendrecv(_replace): the source, its elements and bytes */
    long recv_count, recv_bytes;
    int partitions;                /* MPI_Psend_init, MPI_Precv_init: partitions of the message */
    int partition, partition_last; /* MPI_Pready(_range), MPI_Parrived: the partitions named */
    int request; /* MPI_Request_c2f of a request: persistent (set up, started, marked), a
                  * non-blocking collective's, or the one an MPI_Wait or MPI_Test completes */
    long step;   /* the kernel's iteration when the call began (hl_trace_step), -1 before */
    unsigned long buffer; /* a receive's or a persistent (partitioned) set-up's buffer address */
    unsigned long sent;   /* a send's buffer address (HL_SENT; lab 12 (a): whose columns) */
    MPI_Request *posting; /* a non-blocking send's or receive's request, read at its end */
    int posted; /* MPI_Request_c2f of the request a non-blocking send or receive returned */
    int mode; /* MPI_Win_fence, MPI_Win_lock_all: the assert given, as window_mode's bits (-1 for
               * other calls) */
    int live; /* a completion call: the requests it was given that were not MPI_REQUEST_NULL */
    int send_changed; /* a completion: of the requests it completed, how many non-blocking
                       * collectives' send buffers changed between posting and completion */
    long send_writes; /* a completion: the stores the debug registers counted into those send
                       * buffers while in flight (-1: none of them watched by hardware) */
    int watch;        /* a watched posting: debug registers armed on its send buffer (0: none,
                       * -errno: perf_event_open refused, the hash alone) */
    long watched;     /* a watched posting: the bytes of its send buffer those registers cover */
    char comm[HL_TRACE_COMM_CHARS];
    char requests[HL_TRACE_COMM_CHARS]; /* MPI_Waitall, MPI_Testall: the requests given */
    char held[HL_TRACE_COMM_CHARS]; /* the student's receives it completed: what each buffer
                                     * held then, as the kernel's hook reads it ("held") */
    int unread; /* 1: a student's receive this call posted or set up that the tracer could not
                 * keep (every slot taken), or one its MPI_Request_free freed before it
                 * completed: a receive never read ("unread") */
    int statuses;                /* statuses the tracer lent MPI for this call (status_lend) */
    MPI_Status *caller_statuses; /* the caller's, given them back at the end; NULL: ignored */
} hl_trace_call;

typedef struct {
    double start, end;
    long first, last; /* hl_trace_rows: the rows computed (-1: a helper without rows) */
    long step;        /* the kernel's iteration (hl_trace_step), -1 before the first */
    long tid;         /* the calling thread's OS id */
    int thread, cpu, numa;
} hl_trace_interval;

static hl_trace_call calls[HL_TRACE_MAX_CALLS];
static atomic_long call_count;  /* calls made (kept: the first MAX_CALLS) */
static atomic_long not_main;    /* calls from a thread other than MPI's main */
static atomic_long in_parallel; /* calls inside an active parallel region */
static atomic_long overlapped;  /* calls that began while another was in MPI */
static atomic_int active;       /* calls inside MPI right now */
static hl_trace_interval intervals[HL_TRACE_MAX_COMPUTE];
static atomic_long interval_count;
static atomic_long step = -1;          /* the kernel's iteration (hl_trace_step) */
static atomic_long stream_seq;         /* lines written to the stream */
static atomic_int stream_full;         /* the stream reached HL_TRACE_STREAM_BYTES */

/* What frames, times and checks the records, on a page of its own that is read-only except while
 * the tracer itself changes it (sealed): code of the process can read it, and a store into it
 * faults. So no cell can send the lines elsewhere or drop them, frame them with another key, move
 * the clock's origin, or rewrite the check of the kernel's records (a cell cannot call mprotect:
 * hybridlab.kernels.unit_checks). Every traced call is written to the stream, whatever a counter
 * a cell could change says. */
#define HL_SEALED_BYTES 4096
#define HL_MAX_UPDATE_SITES 64 /* the update's store and read sites kept (hl_write_count.h) */
static union {
    struct {
        int stream_fd;              /* the rank's stream file ($HL_TRACE_STREAM), or -1 */
        int guard_fd;               /* the number the stream is kept at (hl_stream_guard.h) */
        int records_fd;             /* a copy of stdout the records are printed to, or -1 */
        int guarded;                /* 1: the filter guards guard_fd and records_fd */
        int stream_rank;            /* the rank the stream is framed with */
        double origin;              /* the clock when the run started */
        char *key_page;             /* the run's key, on a page nobody reads (key_copy), */
        int key_len;                /* its length (0: no key, framed "-"), and */
        int key_mem;                /* /proc/self/mem it is read through, or -1 */
        uint64_t noted_hash;        /* FNV-1a of the bytes the kit appended to the records */
        size_t noted_len;
        long init_cpu_ns;           /* a whole program: MPI's main thread's CPU time when MPI
                                     * started, and the process's peak memory then (KiB) */
        long init_rss_kb;
        long start_rss_kb;          /* ... its peak memory when the tracer loaded, before main
                                     * ran (hl_trace_loaded), and what MPI_Init_thread itself
                                     * made resident (KiB, /proc/self/statm around the call) */
        long mpi_rss_kb;
        void (*student_hook)(void); /* run before each of the student's calls (a kernel's) */
        hl_reduce_hook reduce_hook; /* the send buffer of each of the student's reductions */
        hl_receive_hook receive_hook; /* reads each of the student's completed receives */
        hl_hold_hook hold_hook;     /* holds each of the student's calls inside MPI (a kernel's) */
        int update_sites_given;     /* the counted build: HL_UPDATE_SITES was set (lab 10), and */
        int update_site_count;      /* the update's store sites and read sites, offsets in the */
        int update_read_count;      /* cell's code (hl_write_count.h) */
        unsigned int update_sites[HL_MAX_UPDATE_SITES];
        unsigned int update_reads[HL_MAX_UPDATE_SITES];
    } s;
    char page[HL_SEALED_BYTES];
} sealed __attribute__((aligned(HL_SEALED_BYTES))) = {
    .s = {.stream_fd = -1, .guard_fd = -1, .records_fd = -1, .key_mem = -1}};
#define F sealed.s

/* The sealed page writable (1) for the tracer's change, or read-only again (0). */
static void unsealed(int writable) {
    (void)mprotect(&sealed, sizeof sealed, writable ? PROT_READ | PROT_WRITE : PROT_READ);
}

/* ---------------------------------------------------------------------- the run's key
 * The key is on a page of its own that nobody can read (PROT_NONE; a cell cannot call mprotect:
 * hybridlab.kernels.unit_checks), read for each framed line through /proc/self/mem (the kernel
 * reads a PROT_NONE page of the process for it; a descriptor a cell cannot read: no read, pread,
 * fread or system call) into the line's own buffer, which is zeroed once written: no copy of it
 * stays in readable memory while code of the cell runs (a fresh attacker, A12, found the key on
 * the sealed page by scanning the library's data and framed records of a rank the run has not).
 * Only where /proc/self/mem cannot be read is the page made readable for the copy. */
static atomic_flag key_lock = ATOMIC_FLAG_INIT;

/* The run's key copied to `to` (HL_KEY_CHARS at most, no NUL); its length. */
static int __attribute__((noinline)) key_copy(char *to) {
    if (F.key_len <= 0 || !F.key_page) {
        to[0] = '-';
        return 1;
    }
    if (F.key_mem >= 0 && pread(F.key_mem, to, (size_t)F.key_len,
                                (off_t)(uintptr_t)F.key_page) == (ssize_t)F.key_len)
        return F.key_len;
    while (atomic_flag_test_and_set(&key_lock)) {
    }
    (void)mprotect(F.key_page, (size_t)sysconf(_SC_PAGESIZE), PROT_READ);
    memcpy(to, F.key_page, (size_t)F.key_len);
    (void)mprotect(F.key_page, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE);
    atomic_flag_clear(&key_lock);
    return F.key_len;
}

/* "@hl KEY RANK " into `out` (at least HL_KEY_CHARS + 32 bytes); its length. */
static int frame_head(char *out, int rank) {
    memcpy(out, "@hl ", 4);
    int n = 4 + key_copy(out + 4);
    return n + snprintf(out + n, 24, " %d ", rank);
}

/* ------------------------------------------------------------------- the stream */

/* One record line `json` (n bytes, ending in a newline) to the stream, framed, in one write;
 * none once the file holds HL_TRACE_STREAM_BYTES (its size asked of the kernel, not counted
 * here): one "stream_full" line then, which the harness reports (records.parse_framed). */
static void stream_write(const char *json, int n) {
    char framed[1700]; /* a call's line at most some 1300 bytes (format_call), and the frame */
    if (stream_syscall(SYS_lseek, F.stream_fd, 0, SEEK_END) >= HL_TRACE_STREAM_BYTES) {
        if (atomic_exchange(&stream_full, 1)) return;
        static const char full[] = "{\"record\":\"stream_full\"}\n";
        json = full;
        n = (int)sizeof full - 1;
    }
    long seq = atomic_fetch_add(&stream_seq, 1);
    int head = frame_head(framed, F.stream_rank);
    head += snprintf(framed + head, 24, "%ld ", seq);
    if (n >= 0 && (size_t)head + (size_t)n <= sizeof framed) {
        memcpy(framed + head, json, (size_t)n);
        /* a line lost is a number missing: the harness refuses the stream */
        (void)stream_syscall(SYS_write, F.stream_fd, (long)framed, (long)head + n);
    }
    explicit_bzero(framed, (size_t)head); /* the key: no copy left on the caller's stack */
}

/* The stream file `fd` kept at the guarded number (the first stream of the process takes one,
 * and one for a copy of stdout, and installs the guard); the descriptor the stream is written
 * to. */
static int stream_kept(int fd) {
    if (F.guard_fd < 0) {
        int out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, HL_STREAM_FD_MIN);
        int high = fcntl(fd, F_DUPFD_CLOEXEC, HL_STREAM_FD_MIN);
        if (out < 0 || high < 0) { /* no numbers free up there: unguarded */
            if (out >= 0) close(out);
            if (high >= 0) close(high);
            return fd;
        }
        F.records_fd = out;
        F.guard_fd = high;
        F.guarded = stream_guard(high, out);
    } else if (stream_syscall(SYS_dup3, fd, F.guard_fd, O_CLOEXEC) < 0) {
        return fd;
    }
    close(fd);
    return F.guard_fd;
}

/* The rank's stream file, opened afresh for a run ($HL_TRACE_STREAM; none without it). */
static void stream_open(void) {
    if (F.stream_fd >= 0) stream_syscall(SYS_close, F.stream_fd, 0, 0);
    F.stream_fd = -1;
    atomic_store(&stream_seq, 0);
    atomic_store(&stream_full, 0);
    const char *dir = getenv("HL_TRACE_STREAM");
    int ready = 0;
    if (!dir || !*dir || MPI_Initialized(&ready) != MPI_SUCCESS || !ready) return;
    MPI_Comm_rank(MPI_COMM_WORLD, &F.stream_rank);
    char path[4096];
    snprintf(path, sizeof path, "%s/stream-%d.jsonl", dir, F.stream_rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return;
    F.stream_fd = stream_kept(fd);
    char line[160]; /* the clock's origin, before any code of the run: lines after it are absolute */
    stream_write(line, snprintf(line, sizeof line,
                                "{\"rank\":%d,\"record\":\"stream_origin\",\"origin\":%.9f,"
                                "\"guarded\":%d}\n",
                                F.stream_rank, F.origin, F.stream_fd == F.guard_fd && F.guarded));
}

/* The stream's closing line (the lines written before it), and the file closed. */
static void stream_close(void) {
    if (F.stream_fd < 0) return;
    char line[HL_KEY_CHARS + 96];
    int n = frame_head(line, F.stream_rank);
    n += snprintf(line + n, 48, "end %ld 1\n", atomic_load(&stream_seq));
    (void)stream_syscall(SYS_write, F.stream_fd, (long)line, n);
    explicit_bzero(line, sizeof line);
    (void)stream_syscall(SYS_close, F.stream_fd, 0, 0);
    unsealed(1);
    F.stream_fd = -1;
    unsealed(0);
}

/* A call's record as one JSON line, its times from `base`; its length. */
static int format_call(char *line, size_t cap, int rank, double base, const hl_trace_call *c) {
    return snprintf(line, cap,
                    "{\"rank\":%d,\"thread\":%d,\"cpu\":%d,\"numa\":%d,\"record\":\"mpi_call\","
                    "\"call\":\"%s\",\"start\":%.9f,\"end\":%.9f,\"main\":%d,"
                    "\"in_parallel\":%d,\"level\":%d,\"team\":%d,\"tid\":%ld,"
                    "\"concurrent\":%d,\"done\":%d,\"comm_size\":%d,\"comm\":\"%s\","
                    "\"student\":%d,\"comm_id\":%d,\"tag\":%d,\"count\":%ld,\"peer\":%d,"
                    "\"bytes\":%ld,\"recv_peer\":%d,\"recv_count\":%ld,\"recv_bytes\":%ld,"
                    "\"partitions\":%d,\"partition\":%d,\"partition_last\":%d,"
                    "\"request\":%d,\"requests\":\"%s\",\"step\":%ld,\"buffer\":%lu,\"mode\":%d,\"live\":%d,"
                    "\"send_changed\":%d,\"send_writes\":%ld,\"watch\":%d,\"watched\":%ld,\"sent\":%lu,"
                    "\"posted\":%d,\"held\":\"%s\",\"unread\":%d}\n",
                    rank, c->thread, c->cpu, c->numa, c->call ? c->call : "?", c->start - base,
                    c->end - base, c->main, c->in_parallel, c->level, c->team, c->tid,
                    c->concurrent, c->done, c->comm_size, c->comm, c->student, c->comm_id, c->tag,
                    c->count, c->peer, c->bytes, c->recv_peer, c->recv_count, c->recv_bytes,
                    c->partitions, c->partition, c->partition_last, c->request, c->requests,
                    c->step, c->buffer, c->mode, c->live, c->send_changed, c->send_writes,
                    c->watch, c->watched, c->sent, c->posted, c->held, c->unread);
}

/* A piece of computing as one JSON line, its times from `base`; its length. */
static int format_piece(char *line, size_t cap, int rank, double base,
                        const hl_trace_interval *v) {
    return snprintf(line, cap,
                    "{\"rank\":%d,\"thread\":%d,\"cpu\":%d,\"numa\":%d,\"record\":\"computed\","
                    "\"start\":%.9f,\"end\":%.9f,\"pieces\":1,\"first\":%ld,\"last\":%ld,"
                    "\"step\":%ld,\"tid\":%ld}\n",
                    rank, v->thread, v->cpu, v->numa, v->start - base, v->end - base,
                    v->first, v->last, v->step, v->tid);
}

/* The key the harness wrote for this run (letters and digits), none without one: read with
 * read(2) into this frame (no stdio buffer keeps it), put on the key's page (made at the first
 * run, PROT_NONE between runs) and this frame's copy zeroed. The sealed page is writable here. */
static void __attribute__((noinline)) read_key(void) {
    char key[HL_KEY_CHARS + 1];
    const char *path = getenv("HL_RECORD_KEY_FILE");
    int fd = path && *path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    ssize_t got = fd >= 0 ? read(fd, key, HL_KEY_CHARS) : -1;
    if (fd >= 0) close(fd);
    key[got > 0 ? got : 0] = '\0';
    size_t n = strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (!F.key_page) {
        void *p = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        F.key_page = p == MAP_FAILED ? NULL : p;
    }
    if (F.key_mem < 0) F.key_mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    F.key_len = 0;
    if (n && F.key_page && mprotect(F.key_page, page, PROT_READ | PROT_WRITE) == 0) {
        memset(F.key_page, 0, page);
        memcpy(F.key_page, key, n);
        (void)mprotect(F.key_page, page, PROT_NONE);
        F.key_len = (int)n;
    }
    explicit_bzero(key, sizeof key);
}

static uint64_t fnv(uint64_t h, const char *text, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
    return h;
}

void hl_trace_note(const char *text, size_t n) {
    unsealed(1);
    F.noted_hash = fnv(F.noted_hash, text, n);
    F.noted_len += n;
    unsealed(0);
}

static void records_begin(void) {
    F.noted_hash = 14695981039346656037ULL;
    F.noted_len = 0;
}

void hl_trace_print(const char *text, size_t n) {
    if (F.records_fd < 0) {
        fwrite(text, 1, n, stdout);
        fflush(stdout);
        return;
    }
    fflush(stdout); /* what the kernel printed before, first */
    for (size_t done = 0; done < n;) {
        long wrote = stream_syscall(SYS_write, F.records_fd, (long)(text + done), (long)(n - done));
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return; /* the harness refuses records without their closing line */
        done += (size_t)wrote;
    }
}

void hl_trace_frame(hl_ctx *ctx) {
    stream_close(); /* a run that ended before its summary: the stream closed all the same */
    /* a run with a key (under mpiexec): every rank's code done before any rank frames, so no
     * cell still running sees a framed buffer on its way to rank 0 (MPI's shared memory) */
    int ready = 0, done = 0;
    if (F.key_len > 0 && ctx->comm != MPI_COMM_NULL && MPI_Initialized(&ready) == MPI_SUCCESS &&
        ready && MPI_Finalized(&done) == MPI_SUCCESS && !done)
        MPI_Barrier(ctx->comm);
    int ok = ctx->len == F.noted_len &&
             fnv(14695981039346656037ULL, ctx->out ? ctx->out : "", ctx->len) == F.noted_hash;
    size_t cap = ctx->len + 4096, used = 0;
    for (size_t i = 0; i < ctx->len; i++) cap += ctx->out[i] == '\n' ? 48 + HL_KEY_CHARS : 0;
    char *framed = (malloc)(cap);
    if (!framed) {
        fprintf(stderr, "hybridlab: out of memory for records\n");
        abort();
    }
    long seq = 0;
    const char *line = ctx->out ? ctx->out : "", *end = line + ctx->len;
    while (line < end) {
        const char *stop = memchr(line, '\n', (size_t)(end - line));
        size_t n = (size_t)((stop ? stop : end) - line);
        if (n) {
            used += (size_t)frame_head(framed + used, ctx->rank);
            used += (size_t)snprintf(framed + used, cap - used, "%ld ", seq++);
            memcpy(framed + used, line, n);
            used += n;
            framed[used++] = '\n';
        }
        line += n + 1;
    }
    used += (size_t)frame_head(framed + used, ctx->rank);
    used += (size_t)snprintf(framed + used, cap - used, "end %ld %d\n", seq, ok);
    (free)(ctx->out);
    ctx->out = framed;
    ctx->len = used;
    ctx->cap = cap;
    unsealed(1);
    F.noted_len = used; /* the framed buffer is the kit's own */
    F.noted_hash = fnv(14695981039346656037ULL, framed, used);
    unsealed(0);
}

/* ------------------------------------------------------------------------ the trace */

static void watch_reset(void); /* a non-blocking collective's send buffer: below */

void hl_trace_reset(void) {
    atomic_store(&interval_count, 0);
    atomic_store(&call_count, 0);
    atomic_store(&not_main, 0);
    atomic_store(&in_parallel, 0);
    atomic_store(&overlapped, 0);
    atomic_store(&active, 0);
    atomic_store(&step, -1);
    watch_reset();
    unsealed(1);
    read_key();
    records_begin();
    F.origin = hl_now();
    stream_open();
    unsealed(0);
}

/* The kernel starts iteration `iteration`: kept for the buffers, and on the stream a "step" line
 * with the clock's time, from which the harness marks every later record (records.parse_framed). */
void hl_trace_step(long iteration) {
    atomic_store(&step, iteration);
    if (F.stream_fd < 0) return;
    char line[160];
    stream_write(line, snprintf(line, sizeof line,
                                "{\"rank\":%d,\"record\":\"step\",\"step\":%ld,\"at\":%.9f}\n",
                                F.stream_rank, iteration, hl_now()));
}

double hl_trace_origin_time(void) { return F.origin; }

/* ---------------------------------------------------------------------- task stamps
 * What ran in a task's own body (lab 12 (b)). The run-sched ICV is one of a task's data
 * environment (OpenMP 5.0, 2.4): a task starts with a copy of its creator's and its changes die
 * with it. The kit sets the chunk to TASK_MARK (hl_trace_task_mark) before it calls a student's
 * function; each of the student's MPI calls and each stencil_rows adds a stamp to the chunk of
 * the task it runs in (hl_trace_task_stamp); what the caller's own chunk gathered when the
 * function returns (hl_trace_task_unmark) is what its body did outside every task. A chunk below
 * TASK_MARK (every other run) is left alone. A cell may not set the schedule
 * (HL_SCHEDULE_IS_EVIDENCE in thread_halo_student.h). */
#define TASK_MARK (1 << 30) /* above every chunk hl_param_schedule accepts (1e9) */
#define MPI_STAMP (1 << 12) /* an MPI call's stamp; a stencil_rows' is 1 */
static _Thread_local omp_sched_t marked_kind;
static _Thread_local int marked_chunk;

void hl_trace_task_mark(void) {
    omp_get_schedule(&marked_kind, &marked_chunk);
    omp_set_schedule(omp_sched_static, TASK_MARK);
}

int hl_trace_task_stamp(int mpi) {
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    if (chunk < TASK_MARK) return -1;
    omp_set_schedule(kind, chunk + (mpi ? MPI_STAMP : 1));
    return (chunk - TASK_MARK) / MPI_STAMP;
}

/* A task the student's code creates starts with a stamp of its own: around GOMP_task and
 * GOMP_taskloop (thread_halo.c wraps them in the tasks build) the creator's marked chunk is set
 * back to TASK_MARK, so the child inherits no MPI calls (an interior task created by the posting
 * task after its posts is a task of its own: a fresh attacker's right answer r12e lost 4/4 as
 * "the exchange's own task computed the interior", 2026-12-05); the creator's is put back after
 * (hl_trace_task_restore). Returns the creator's chunk, -1 when it was not marked. */
int hl_trace_task_fresh(void) {
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    if (chunk < TASK_MARK) return -1;
    omp_set_schedule(kind, TASK_MARK);
    return chunk;
}

void hl_trace_task_restore(int chunk) {
    if (chunk < TASK_MARK) return;
    omp_sched_t kind;
    int now;
    omp_get_schedule(&kind, &now);
    omp_set_schedule(kind, chunk);
}

void hl_trace_task_unmark(long *rows, long *calls) {
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    *rows += (chunk - TASK_MARK) % MPI_STAMP;
    *calls += (chunk - TASK_MARK) / MPI_STAMP;
    omp_set_schedule(marked_kind, marked_chunk);
}

/* A kernel's look at what the student's code left where the kit reads it (lab 15: the device's
 * copy of the block), run before each of the student's MPI calls; NULL: none. */
void hl_trace_on_student_call(void (*hook)(void)) {
    unsealed(1);
    F.student_hook = hook;
    unsealed(0);
}

/* A kernel's look at each of the student's reductions (MPI_Reduce, MPI_Allreduce and their
 * non-blocking forms), made as the call begins: `hook` returns the send buffer MPI is given
 * (the student's, or a copy of the kernel's; with MPI_IN_PLACE it may change the values in
 * place in the receive buffer: lab 06's nudge, node_sum.c); root -1 for an allreduce. NULL: none. */
void hl_trace_on_student_reduce(hl_reduce_hook hook) {
    unsealed(1);
    F.reduce_hook = hook;
    unsealed(0);
}
/* A kernel's reading of each of the student's receives as it completes: `hook` is given the
 * receive buffer, the elements the receive got (its status's count) and their type, and writes
 * what they hold (a short text, no quotes, commas or slashes) into `out` (at most `cap` chars),
 * returning its length; the record of the call that completed the receive (a blocking receive
 * itself, or the Wait or Test that reported its request done) keeps each reading in "held",
 * under the thread that posted the receive (lab 01: whose block each thread's message carried;
 * below, what a student's receive held). NULL: none. */
void hl_trace_on_student_receive(hl_receive_hook hook) {
    unsealed(1);
    F.receive_hook = hook;
    unsealed(0);
}
/* A kernel's hold on each of the student's calls, run once the call has begun (it counts as
 * inside MPI: its "start" is taken and it is among the rank's calls inside MPI) and before the
 * real call: `hook` is given a function that returns how many calls of the rank are inside MPI
 * now, its own included, and the call goes on when the hook returns (lab 01 (b), thread_ring.c:
 * a call waits there until another thread of the rank is inside MPI too, an overlap the trace
 * then shows, or until every other thread waits at a lock, a critical section or a barrier).
 * `hook` is called again with NULL once the call has ended (its "end" taken): the kernel keeps
 * which of its threads are inside MPI where a cell cannot write (thread_ring.c), not trusting
 * the tracer's count of calls inside MPI, which a cell can reach. NULL: none. */
void hl_trace_on_student_hold(hl_hold_hook hook) {
    unsealed(1);
    F.hold_hook = hook;
    unsealed(0);
}
static int inside_now(void) { return atomic_load(&active); }
#define HL_CONTRIBUTED(sb, rb, n, t, op, root, c)                                               \
    (c_.student && F.reduce_hook ? F.reduce_hook(sb, rb, n, t, op, root, c) : (sb))

static void trace_begin(hl_trace_call *c, const char *call, int student) {
    if (student && F.student_hook) F.student_hook();
    c->call = call;
    c->thread = omp_get_thread_num();
    c->in_parallel = omp_in_parallel();
    c->level = omp_get_level();
    c->team = omp_get_num_threads();
    c->tid = (long)syscall(SYS_gettid); /* asked each time: nothing kept a cell could change */
    c->main = 0;
    MPI_Is_thread_main(&c->main);
    hl_where(&c->cpu, &c->numa);
    c->done = -1;
    c->comm_size = 0;
    c->comm_id = -1;
    c->tag = MPI_UNDEFINED;
    c->count = -1;
    c->peer = c->recv_peer = HL_PEER_NONE;
    c->bytes = c->recv_count = c->recv_bytes = -1;
    c->partitions = 0;
    c->partition = c->partition_last = -1;
    c->request = -1;
    c->buffer = 0;
    c->sent = 0;
    c->posting = NULL;
    c->posted = -1;
    c->mode = -1;
    c->live = -1;
    c->send_changed = 0;
    c->send_writes = -1;
    c->watch = 0;
    c->watched = 0;
    c->step = atomic_load(&step);
    c->student = student;
    if (student) hl_trace_task_stamp(1);
    c->comm[0] = '\0';
    c->requests[0] = '\0';
    c->held[0] = '\0';
    c->unread = 0;
    c->statuses = 0;
    c->caller_statuses = NULL;
    c->concurrent = atomic_fetch_add(&active, 1);
    c->start = hl_now();
    if (student && F.hold_hook) F.hold_hook(inside_now);
}

/* The communicator of a collective: its size and members as MPI_COMM_WORLD ranks. */
static void trace_comm(hl_trace_call *c, MPI_Comm comm) {
    int n = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &n) != MPI_SUCCESS) return;
    c->comm_size = n;
    MPI_Group group, world;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        int w = MPI_UNDEFINED;
        MPI_Group_translate_ranks(group, 1, &i, world, &w);
        int k = snprintf(c->comm + used, sizeof c->comm - used, "%s%d", i ? "," : "", w);
        if (k < 0 || used + (size_t)k >= sizeof c->comm - 2) {
            snprintf(c->comm + used, sizeof c->comm - used, "+");
            break;
        }
        used += (size_t)k;
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
}

/* A request as the records name it: MPI_Request_c2f, -1 for MPI_REQUEST_NULL (whatever handle
 * the library gives it), so a test of a completed request's variable is seen as testing none. */
static int request_id(MPI_Request r) {
    return r == MPI_REQUEST_NULL ? -1 : (int)MPI_Request_c2f(r);
}

/* The requests an MPI_Waitall or MPI_Testall is given (before it sets them to MPI_REQUEST_NULL),
 * "3,7", request_id each, cut with "+" beyond the field. */
static void trace_requests(hl_trace_call *c, int n, const MPI_Request r[]) {
    size_t used = 0;
    c->live = 0;
    for (int i = 0; i < n; i++) c->live += r[i] != MPI_REQUEST_NULL;
    for (int i = 0; i < n; i++) {
        int k = snprintf(c->requests + used, sizeof c->requests - used, "%s%d", i ? "," : "",
                         request_id(r[i]));
        if (k < 0 || used + (size_t)k >= sizeof c->requests - 2) {
            snprintf(c->requests + used, sizeof c->requests - used, "+");
            break;
        }
        used += (size_t)k;
    }
}

/* An MPI_Pready_list's partitions, "0,2" in "requests" (cut with "+" beyond the field); its
 * lowest (-1 for an empty list), and its highest (list_last). */
static int part_list(hl_trace_call *c, int n, const int parts[]) {
    size_t used = 0;
    int low = -1;
    for (int i = 0; i < n; i++) {
        if (low < 0 || parts[i] < low) low = parts[i];
        int k = snprintf(c->requests + used, sizeof c->requests - used, "%s%d", i ? "," : "",
                         parts[i]);
        if (k < 0 || used + (size_t)k >= sizeof c->requests - 2) {
            snprintf(c->requests + used, sizeof c->requests - used, "+");
            break;
        }
        used += (size_t)k;
    }
    return low;
}
static int list_last(int n, const int parts[]) {
    int high = -1;
    for (int i = 0; i < n; i++)
        if (parts[i] > high) high = parts[i];
    return high;
}

/* An MPI_Waitany, _Waitsome, _Testany or _Testsome: of the requests it was given (trace_requests,
 * before the call), keep only the `kept` it completed, at positions `indices`. */
static void keep_completed(hl_trace_call *c, int kept, const int indices[]) {
    char given[HL_TRACE_COMM_CHARS];
    const char *item[HL_TRACE_COMM_CHARS / 2];
    int items = 0;
    snprintf(given, sizeof given, "%s", c->requests);
    for (char *save = NULL, *tok = strtok_r(given, ",", &save); tok && items < HL_TRACE_COMM_CHARS / 2;
         tok = strtok_r(NULL, ",", &save))
        item[items++] = tok;
    size_t used = 0;
    c->requests[0] = '\0';
    for (int j = 0; j < kept; j++) {
        const char *r = indices[j] >= 0 && indices[j] < items ? item[indices[j]] : "+";
        int k = snprintf(c->requests + used, sizeof c->requests - used, "%s%s", j ? "," : "", r);
        if (k < 0 || used + (size_t)k >= sizeof c->requests - 2) {
            snprintf(c->requests + used, sizeof c->requests - used, "+");
            break;
        }
        used += (size_t)k;
    }
}

/* The calling thread's number in the outermost team, a piece's "thread": what no region a cell
 * opens can change. omp_get_thread_num() is the innermost team's: 0 on any thread in a parallel
 * region of one thread nested in its own, and in a target region run on the host (level 0 there,
 * its own numbering inside) (a fresh attacker's A14 d03_c3 had thread 1 compute the master's steps
 * in a nested team of one, recorded as thread 0's, 4/4 twice, 2026-12-07). Number 0 is MPI's
 * main thread's (MPI_Is_thread_main; the process's first thread outside MPI): another OS thread
 * numbered 0 is -1, a thread of no number of the outermost team. */
static int outermost_thread(void) {
    int t = omp_get_level() >= 1 ? omp_get_ancestor_thread_num(1) : 0, up = 0, down = 0, main = 0;
    if (t != 0) return t;
    if (MPI_Initialized(&up) == MPI_SUCCESS && up && MPI_Finalized(&down) == MPI_SUCCESS && !down)
        MPI_Is_thread_main(&main);
    else
        main = syscall(SYS_gettid) == getpid();
    return main ? 0 : -1;
}

/* A piece of computing of the calling thread from `start` to `end` with rows `first`..`last`:
 * to the stream (every one), else kept (the first HL_TRACE_MAX_COMPUTE). Its "thread": the
 * outermost team's number (outermost_thread). */
static void new_piece(double start, double end, long first, long last) {
    long slot = atomic_fetch_add(&interval_count, 1);
    if (F.stream_fd < 0 && slot >= HL_TRACE_MAX_COMPUTE) return;
    hl_trace_interval v = {.start = start, .end = end, .first = first, .last = last,
                           .step = atomic_load(&step),
                           .thread = outermost_thread()};
    v.tid = (long)syscall(SYS_gettid);
    hl_where(&v.cpu, &v.numa);
    if (F.stream_fd >= 0) {
        char line[512];
        stream_write(line, format_piece(line, sizeof line, F.stream_rank, 0.0, &v));
    } else {
        intervals[slot] = v;
    }
}

/* Something a kit helper did that a part is judged by (`fields`: JSON members, "record" among
 * them), from `start` to `end` (hl_now()) on the calling thread: written to the stream the moment
 * it ends, like a call, with the clock's own times, so no later store changes it. 1 when written;
 * 0 without a stream (a kernel the engines run), where the kit keeps it itself. */
int hl_trace_event(const char *fields, double start, double end) {
    if (F.stream_fd < 0) return 0;
    char line[512];
    stream_write(line, snprintf(line, sizeof line, "{\"rank\":%d,%s,\"start\":%.9f,\"end\":%.9f}\n",
                                F.stream_rank, fields, start, end));
    return 1;
}

/* Whether this run's records go to a stream (hl_trace_event writes them). */
int hl_trace_streaming(void) { return F.stream_fd >= 0; }

/* A kit helper computed from `start` to `end` (hl_now()) on the calling thread. */
void hl_trace_compute(double start, double end) { new_piece(start, end, -1, -1); }

/* A kit helper computed rows `first`..`last` of a grid from `start` to `end`. */
void hl_trace_rows(double start, double end, long first, long last) {
    new_piece(start, end, first, last);
}

/* ------------------------------------------------------ statuses lent to MPI (lab 01)
 * A completion or a blocking receive is given the tracer's own statuses (HL_STATUS,
 * HL_STATUSES in hl_trace_calls.h), filled first with the caller's, so the tracer reads what
 * each receive got even from a caller that passed MPI_STATUS(ES)_IGNORE, and no other thread
 * of the caller can change them before it does; the caller's get MPI's at the call's end
 * (trace_keep). */
static _Thread_local MPI_Status *status_own; /* the calling thread's lent statuses */
static _Thread_local int status_room;

/* `n` statuses for MPI in place of the caller's `given` (`ignore`: MPI_STATUS_IGNORE or
 * MPI_STATUSES_IGNORE); the caller's own when they cannot be had. */
static MPI_Status *status_lend(hl_trace_call *c, MPI_Status *given, int n, MPI_Status *ignore) {
    if (n <= 0) return given;
    if (n > status_room) {
        MPI_Status *more = (realloc)(status_own, (size_t)n * sizeof *more);
        if (!more) return given;
        status_own = more, status_room = n;
    }
    c->statuses = n;
    c->caller_statuses = given == ignore ? NULL : given;
    if (c->caller_statuses) memcpy(status_own, given, (size_t)n * sizeof *given);
    return status_own;
}
#define HL_STATUS(st) status_lend(&c_, (st), 1, MPI_STATUS_IGNORE)
#define HL_STATUSES(st, n) status_lend(&c_, (st), (n), MPI_STATUSES_IGNORE)

/* The status MPI wrote for the `k`-th request of call `c` (0 for a blocking receive); NULL
 * where none was lent. */
static const MPI_Status *status_lent(const hl_trace_call *c, int k) {
    return k >= 0 && k < c->statuses ? &status_own[k] : NULL;
}

/* Keep the call, ended at `end`. */
static void trace_keep(hl_trace_call *c, double end) {
    c->end = end;
    if (c->student && F.hold_hook) F.hold_hook(NULL); /* the held call has ended */
    if (c->caller_statuses) /* the caller's statuses, as MPI wrote them */
        memcpy(c->caller_statuses, status_own, (size_t)c->statuses * sizeof *status_own);
    atomic_fetch_sub(&active, 1);
    if (!c->main) atomic_fetch_add(&not_main, 1);
    if (c->in_parallel) atomic_fetch_add(&in_parallel, 1);
    if (c->concurrent) atomic_fetch_add(&overlapped, 1);
    long slot = atomic_fetch_add(&call_count, 1);
    if (F.stream_fd >= 0) {
        char line[1536];
        stream_write(line, format_call(line, sizeof line, F.stream_rank, 0.0, c));
    } else if (slot < HL_TRACE_MAX_CALLS) {
        calls[slot] = *c;
    }
}

static void trace_end(hl_trace_call *c) { trace_keep(c, hl_now()); }

/* A collective's end: its communicator read after the call's end is taken (not its cost). */
static void trace_end_comm(hl_trace_call *c, MPI_Comm comm) {
    double end = hl_now();
    trace_comm(c, comm);
    trace_keep(c, end);
}

/* A point-to-point peer `peer` of `comm` as an MPI_COMM_WORLD rank. */
static int world_peer(MPI_Comm comm, int peer) {
    if (peer == MPI_PROC_NULL) return HL_PEER_NONE;
    if (peer == MPI_ANY_SOURCE) return HL_PEER_ANY;
    int inter = 0, w = MPI_UNDEFINED;
    MPI_Group group, world;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        MPI_Comm_remote_group(comm, &group);
    else
        MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(group, 1, &peer, world, &w);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    return w == MPI_UNDEFINED ? HL_PEER_NONE : w;
}

/* `count` elements of `type` in bytes (-1 when the type cannot tell). */
static long type_bytes(MPI_Datatype type, long count) {
    int size = -1;
    if (type == MPI_DATATYPE_NULL || MPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
        return -1;
    return count * size;
}

/* A reduction's end: its communicator, `count` values of `type` ("count", "bytes") and the
 * request a non-blocking one returned (-1: none), read after the call's end is taken. */
static void trace_end_reduce(hl_trace_call *c, MPI_Comm comm, long count, MPI_Datatype type,
                             int request) {
    double end = hl_now();
    c->count = count;
    c->bytes = type_bytes(type, count);
    c->request = request;
    trace_comm(c, comm);
    trace_keep(c, end);
}

/* A collective's end: its communicator and the `count` elements of `type` this rank sends each
 * member it sends to ("count", "bytes"), read after the call's end is taken. */
static void trace_end_sent(hl_trace_call *c, MPI_Comm comm, long count, MPI_Datatype type) {
    double end = hl_now();
    c->count = count;
    c->bytes = type_bytes(type, count);
    trace_comm(c, comm);
    trace_keep(c, end);
}

/* A point-to-point call's end: its communicator, tag, peer and size, and an MPI_Sendrecv's
 * receive side (`rcount` -1: none), read after the call's end is taken (not its cost). */
static void receive_ended(hl_trace_call *c, long count, MPI_Datatype type); /* below */

static void trace_end_p2p(hl_trace_call *c, MPI_Comm comm, int tag, long count, MPI_Datatype type,
                          int peer, long rcount, MPI_Datatype rtype, int rpeer) {
    double end = hl_now();
    c->comm_id = (int)MPI_Comm_c2f(comm);
    c->tag = tag;
    c->count = count;
    c->peer = world_peer(comm, peer);
    c->bytes = type_bytes(type, count * (c->partitions > 0 ? c->partitions : 1));
    if (c->posting) c->posted = (int)MPI_Request_c2f(*c->posting);
    if (rcount >= 0) {
        c->recv_peer = world_peer(comm, rpeer);
        c->recv_count = rcount;
        c->recv_bytes = type_bytes(rtype, rcount);
    }
    receive_ended(c, rcount >= 0 ? rcount : count, rcount >= 0 ? rtype : type);
    trace_keep(c, end);
}

void hl_trace_emit(hl_ctx *ctx) {
    long made = atomic_load(&call_count), kept = made; /* the stream has every one */
    long pieces = atomic_load(&interval_count);
    if (F.stream_fd < 0 && kept > HL_TRACE_MAX_CALLS) kept = HL_TRACE_MAX_CALLS;
    if (F.stream_fd < 0 && pieces > HL_TRACE_MAX_COMPUTE) pieces = HL_TRACE_MAX_COMPUTE;
    char line[1536];
    if (F.stream_fd < 0) {
        for (long i = 0; i < kept; i++)
            hl_append(ctx, line, (size_t)format_call(line, sizeof line, ctx->rank, F.origin, &calls[i]));
        for (long i = 0; i < pieces; i++)
            hl_append(ctx, line, (size_t)format_piece(line, sizeof line, ctx->rank, F.origin, &intervals[i]));
    }
    int cpu, numa;
    hl_where(&cpu, &numa);
    int n = snprintf(line, sizeof line,
                     "{\"rank\":%d,\"thread\":%d,\"cpu\":%d,\"numa\":%d,\"record\":\"mpi_trace\","
                     "\"calls\":%ld,\"kept\":%ld,\"not_main\":%ld,\"in_parallel\":%ld,"
                     "\"concurrent\":%ld,\"computed\":%ld}\n",
                     ctx->rank, omp_get_thread_num(), cpu, numa, made, kept,
                     atomic_load(&not_main), atomic_load(&in_parallel), atomic_load(&overlapped),
                     pieces);
    hl_append(ctx, line, (size_t)n);
    stream_close();
}

/* ------------------------------------------------------------------- the entry points */

/* ------------------------------------------------------- a nudged halo (lab 10's judge)
 * HL_HALO_NUDGE="K DELTA" (read before main, hl_trace_loaded): the K-th (from 0) message of doubles that a rank
 * sends to each peer with a send of hl_trace_calls.h (not a persistent or Sendrecv_replace one)
 * leaves as a copy with DELTA added to every double; the program's own buffer is untouched. A
 * program that computes from the rows its neighbours send changes its result by what the judge
 * predicts for that sweep; one that never uses them does not change at all. */
#define HL_NUDGE_PEERS 1024
static long nudge_at = -1;  /* 0: a nudged run (K on nudge_page), -1: no nudge (every other run) */
static atomic_long nudge_sent[HL_NUDGE_PEERS]; /* messages of doubles sent to each world rank */

/* K and DELTA as the tracer found them before main ran, on a page of their own that nobody can
 * read (PROT_NONE, never made readable again: the program cannot call mprotect,
 * hybridlab.kernels.unit_checks); NULL without a nudge. The tracer reads them through
 * /proc/self/mem (opened before main; the kernel reads a PROT_NONE page of the process for it),
 * a descriptor the program cannot use (no read, pread or system call: unit_checks), so no
 * thread of the program finds them readable at any moment, even while a send is made (a fresh
 * attacker found the page's address in memory and read it while the tracer had it readable).
 * Only where /proc/self/mem cannot be read is the page made readable for the read. */
struct hl_nudge {
    long at;
    double by;
};
static struct hl_nudge *nudge_page;
static int nudge_mem = -1; /* /proc/self/mem, or -1 */
static atomic_flag nudge_lock = ATOMIC_FLAG_INIT;

static int __attribute__((noinline)) nudge_value(long *at, double *by) {
    if (!nudge_page) return 0;
    struct hl_nudge kept;
    if (nudge_mem >= 0 &&
        pread(nudge_mem, &kept, sizeof kept, (off_t)(uintptr_t)nudge_page) == (ssize_t)sizeof kept) {
        *at = kept.at, *by = kept.by;
        memset(&kept, 0, sizeof kept);
        return 1;
    }
    while (atomic_flag_test_and_set(&nudge_lock)) {
    }
    (void)mprotect(nudge_page, (size_t)sysconf(_SC_PAGESIZE), PROT_READ);
    *at = nudge_page->at;
    *by = nudge_page->by;
    (void)mprotect(nudge_page, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE);
    atomic_flag_clear(&nudge_lock);
    return 1;
}

/* Zero a stretch of the stack below the caller's frame (what a parse left there). */
static void __attribute__((noinline)) stack_scrub(void) {
    volatile char below[16384];
    memset((char *)below, 0, sizeof below);
}

/* Before main (a constructor: a student's program has none, unit_checks): the process's peak
 * memory now (so what main allocates before MPI starts counts as its own, lab 10), and
 * HL_HALO_NUDGE taken out of the program's reach: read, its entries removed from `environ`
 * (the same array as argv + argc + 1) and their bytes overwritten (the environment block:
 * /proc/self/environ shows them gone too), K and DELTA kept on the tracer's unreadable page. */
static void __attribute__((constructor)) hl_trace_loaded(void) {
    struct rusage use;
    getrusage(RUSAGE_SELF, &use);
    F.start_rss_kb = use.ru_maxrss; /* the page is sealed when a run starts (hl_trace_reset) */
    volatile long at = -1;
    volatile double by = 0.0;
    int found = 0;
    for (char *text; (text = getenv("HL_HALO_NUDGE"));) {
        long a = -1;
        double b = 0.0;
        if (!found && sscanf(text, "%ld %lf", &a, &b) == 2 && a >= 0) at = a, by = b;
        found = 1;
        char *entry = text - (sizeof "HL_HALO_NUDGE=" - 1);
        size_t n = strlen(entry);
        unsetenv("HL_HALO_NUDGE");
        memset(entry, 0, n);
        a = -1, b = 0.0;
    }
    if (found && at >= 0) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            ((struct hl_nudge *)p)->at = at;
            ((struct hl_nudge *)p)->by = by;
            (void)mprotect(p, page, PROT_NONE);
            nudge_page = p;
            nudge_mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
        }
    }
    at = -1, by = 0.0;
    stack_scrub();
}

/* When MPI starts: the counts of messages sent to each peer from 0 (K itself stays on the page) */
static void nudge_read(void) {
    nudge_at = nudge_page ? 0 : -1;
    for (int i = 0; i < HL_NUDGE_PEERS; i++) atomic_store(&nudge_sent[i], 0);
}

/* Whether `type` holds doubles only (MPI_DOUBLE, or types made of it). */
static int doubles_only(MPI_Datatype type) {
    int ni, na, nd, combiner, ok = 1;
    if (type == MPI_DOUBLE) return 1;
    if (MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        combiner == MPI_COMBINER_NAMED || nd < 1 || nd > 16)
        return 0;
    int ints[64];
    MPI_Aint addresses[64];
    MPI_Datatype types[16];
    if (ni > 64 || na > 64 || MPI_Type_get_contents(type, ni, na, nd, ints, addresses, types) != MPI_SUCCESS)
        return 0;
    for (int i = 0; i < nd; i++) {
        ok = ok && doubles_only(types[i]);
        int inner_ni, inner_na, inner_nd, inner;
        MPI_Type_get_envelope(types[i], &inner_ni, &inner_na, &inner_nd, &inner);
        if (inner != MPI_COMBINER_NAMED) MPI_Type_free(&types[i]);
    }
    return ok;
}

/* The buffer a send gives MPI: `b`, or for the nudged message a copy (never freed: a
 * non-blocking send reads it until it completes) with the nudge added to its doubles. */
static const void *hl_nudged(const void *b, int n, MPI_Datatype t, int dest, MPI_Comm c);
static const void *hl_sent(const void *b, int n, MPI_Datatype t, int dest, MPI_Comm c) {
    if (nudge_at < 0 || n <= 0 || dest == MPI_PROC_NULL || !doubles_only(t)) return b;
    const void *sent = hl_nudged(b, n, t, dest, c);
    stack_scrub(); /* K and DELTA gone from the stack below the program's frame */
    return sent;
}

static const void *__attribute__((noinline)) hl_nudged(const void *b, int n, MPI_Datatype t,
                                                       int dest, MPI_Comm c) {
    int w = world_peer(c, dest);
    volatile long nudged = -1;
    volatile double nudge_by = 0.0;
    long k = -1;
    double delta = 0.0;
    int taken = w >= 0 && w < HL_NUDGE_PEERS && nudge_value(&k, &delta);
    nudged = k, nudge_by = delta, k = -1, delta = 0.0;
    if (!taken || atomic_fetch_add(&nudge_sent[w], 1) != nudged) {
        nudged = -1, nudge_by = 0.0;
        return b;
    }
    MPI_Aint lb, extent, true_lb, true_extent;
    int packed = 0, at = 0;
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &true_lb, &true_extent);
    MPI_Pack_size(n, t, c, &packed);
    size_t span = (size_t)(true_extent + (MPI_Aint)(n - 1) * extent);
    char *copy = (malloc)(span ? span : 1);
    double *values = (malloc)((size_t)packed + sizeof(double));
    if (!copy || !values) return b;
    memcpy(copy, (const char *)b + true_lb, span);
    MPI_Pack(b, n, t, values, packed, &at, c);
    for (int i = 0; i < at / (int)sizeof(double); i++) values[i] += nudge_by;
    nudged = -1, nudge_by = 0.0;
    int read = 0;
    MPI_Unpack(values, packed, &read, copy - true_lb, n, t, c);
    memset(values, 0, (size_t)packed);
    (free)(values);
    return copy - true_lb;
}
#define HL_SENT(b, n, t, d, c) (c_.sent = (unsigned long)(uintptr_t)(b), hl_sent(b, n, t, d, c))
/* a non-blocking send's or receive's request in `args`: its handle kept at the call's end */
#define HL_POSTING(r) (c_.posting = (r), (r))
/* a receive's buffer in `args`: its address kept in the call's record (lab 01: whose block) */
#define HL_RECEIVED(b) (c_.buffer = (unsigned long)(uintptr_t)(b), (b))

/* ---------------------------------- a watched send buffer (a non-blocking collective's)
 * MPI forbids changing a non-blocking collective's send buffer before its request completes
 * (MPI 3.0, section 5.12), and a library that copied a small one at the posting (MPICH, one
 * double) gives the right numbers all the same: the posting is the only evidence. So a posting
 * whose send buffer is given as HL_POSTED(buffer, count, type) in hl_trace_calls.h (not
 * MPI_IN_PLACE, a predefined type: its count x size bytes are contiguous) keeps the buffer's
 * address and an FNV-1a hash of its first HL_WATCH_BYTES bytes (hashed before the call), keyed
 * by its request (MPI_Request_c2f, as the posting's record has it); the completion call that
 * says it completed that request (the one an MPI_Wait or MPI_Test was given, the requests of an
 * MPI_Waitall or MPI_Testall, the ones an MPI_Waitany, _Waitsome, _Testany or _Testsome
 * completed: the record's "request" and "requests") hashes the same bytes again and counts in
 * its record's "send_changed" the requests whose bytes differ. Other calls pay one atomic load
 * (no request watched), a posting with a derived type nothing more.
 *
 * A reduction with MPI_IN_PLACE (HL_POSTED_IN) reads its send bytes from the receive buffer and
 * writes the result there: the receive buffer's count x size bytes are watched, but MPI itself
 * may write them in any MPI call during the flight (a library's progress: the kit's own calls,
 * an MPI_Test, the completion). So for such a posting only what changes them outside MPI counts:
 * at the start of every traced MPI call (the cell's and the kit's, HL_DEFINE: watch_enter) the
 * bytes are hashed against their hash at the end of the last one (watch_leave; the posting's
 * end first), a difference counted ("outside"); and the stores the debug registers count on the
 * calling thread between a call's start and end are MPI's own, taken off the count at the
 * completion.
 *
 * A hash sees only what is still changed at the completion: bytes written in flight and put back
 * before it look untouched. So the posting also arms the x86 debug registers (perf_event_open,
 * PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_W: a count of the stores, no signal) over the send buffer's
 * first bytes, at most HL_WATCH_POINTS naturally aligned pieces of 8, 4, 2 or 1 bytes wholly
 * inside it (the four registers: 32 bytes; one double needs one), on every thread of the process
 * (one event per /proc/self/task entry, each with inherit: a thread one of them makes during the
 * flight is watched too), from the end of the posting to the completion that takes its request,
 * which reads the counts and closes them after MPI's own work: a store of any code (the cell's,
 * a kit helper's, MPI's) counts, a read never; MPI reads a send buffer, it does not write it. A
 * store counted is a change ("send_changed", and "send_writes" the stores) whatever the bytes
 * are at the completion. Kernel-mode stores (a system call writing there) count only where the
 * process may watch the kernel (exclude_kernel=0: CAP_PERFMON or perf_event_paranoid <= 1; not
 * in the grader's sandbox), else only user-mode ones. The registers are the process's four:
 * postings in flight share them, one without a free register keeps the hash alone; a refused
 * perf_event_open (perf_event_paranoid 3, a seccomp filter, no debug registers) is remembered,
 * "watch" then -errno on every watched posting: the hash alone. A run with $HL_WATCH_STORES=0
 * (the kit's measured runs that judge no send buffer: arming costs some 10 us a thread) arms
 * nothing. */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#define HL_WATCH_SLOTS 64
#define HL_WATCH_BYTES 4096
#define HL_WATCH_POINTS 4  /* x86-64's debug registers */
#define HL_WATCH_TASKS 128 /* the threads of the process watched, at most */
typedef struct {
    int used, key;            /* key: MPI_Request_c2f of the posting's request */
    const unsigned char *at;  /* the send buffer */
    size_t n;                 /* the bytes hashed */
    uint64_t hash;            /* MPI_IN_PLACE: as the last MPI call left them */
    int points;               /* debug registers armed for it (point_owner) */
    size_t watched;           /* the bytes of it they cover, from its start */
    int inplace;              /* MPI_IN_PLACE: the receive buffer, which MPI writes */
    int outside;              /* MPI_IN_PLACE: changes found at an MPI call's start */
    long mpi_stores;          /* MPI_IN_PLACE: stores counted inside MPI calls (MPI's own) */
} hl_watch;
/* the debug registers: which watch slot holds each (slot + 1; 0 free) and its events' fds */
static int point_owner[HL_WATCH_POINTS];
static int point_fd[HL_WATCH_POINTS][HL_WATCH_TASKS];
static int point_fds[HL_WATCH_POINTS];
static long point_tid[HL_WATCH_POINTS][HL_WATCH_TASKS]; /* the thread each event watches */
static int watch_refused;    /* errno of a refused perf_event_open: the hash alone from then on */
static int watch_user_only;  /* exclude_kernel=0 refused once: user-mode stores only */
static int watch_off;        /* $HL_WATCH_STORES=0 (a measured run the kit does not judge: its
                              * times without the syscalls of arming): the hash alone */
static hl_watch watches[HL_WATCH_SLOTS];
static atomic_int watch_count;                /* slots in use */
static atomic_int inplace_count;              /* of them MPI_IN_PLACE ones */
static _Thread_local int posting_inplace;     /* HL_POSTED_IN's: the receive buffer */
static _Thread_local int enter_key[HL_WATCH_SLOTS]; /* watch_enter's: the slot's key + 1 */
static _Thread_local long enter_stores[HL_WATCH_SLOTS];
static atomic_flag watch_lock = ATOMIC_FLAG_INIT;
static _Thread_local const unsigned char *posting_at; /* HL_POSTED's, until the finish keeps it */
static _Thread_local size_t posting_n;
static _Thread_local uint64_t posting_hash;

static long watch_disarm(int slot);

static void watch_reset(void) {
    const char *off = getenv("HL_WATCH_STORES");
    while (atomic_flag_test_and_set(&watch_lock)) {}
    watch_off = off && strcmp(off, "0") == 0;
    for (int i = 0; i < HL_WATCH_SLOTS; i++)
        if (watches[i].used && watches[i].points) (void)watch_disarm(i);
    memset(watches, 0, sizeof watches);
    atomic_store(&watch_count, 0);
    atomic_store(&inplace_count, 0);
    atomic_flag_clear(&watch_lock);
}

static uint64_t watch_hash(const unsigned char *at, size_t n) {
    return fnv(14695981039346656037ULL, (const char *)at, n);
}

/* The send buffer of a posting (HL_POSTED): hashed now, kept by watch_post with the request. */
static void *hl_posted(const void *b, long count, MPI_Datatype type) {
    posting_at = NULL;
    posting_inplace = 0;
    int ni, na, nd, combiner;
    if (!b || b == MPI_IN_PLACE || count <= 0 || type == MPI_DATATYPE_NULL ||
        MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        combiner != MPI_COMBINER_NAMED)
        return (void *)(uintptr_t)b;
    long bytes = type_bytes(type, count);
    if (bytes <= 0) return (void *)(uintptr_t)b;
    posting_at = b;
    posting_n = bytes > HL_WATCH_BYTES ? HL_WATCH_BYTES : (size_t)bytes;
    posting_hash = watch_hash(posting_at, posting_n);
    return (void *)(uintptr_t)b;
}
#define HL_POSTED(b, n, t) hl_posted(b, (long)(n), t)

/* A reduction's send buffer `sb`, or with MPI_IN_PLACE its receive buffer `rb` (count x size
 * bytes, which MPI reads and then writes: watched outside MPI calls only); returns sb. */
static const void *hl_posted_in(const void *sb, void *rb, long count, MPI_Datatype type) {
    if (sb != MPI_IN_PLACE) return hl_posted(sb, count, type);
    (void)hl_posted(rb, count, type);
    posting_inplace = posting_at != NULL;
    return sb;
}
#define HL_POSTED_IN(sb, rb, n, t) hl_posted_in(sb, rb, (long)(n), t)

/* The OS ids of the process's threads (/proc/self/task), at most `cap`; 0 when unreadable. */
static int watch_tasks(long *tids, int cap) {
    int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
    if (dir < 0) return 0;
    char buf[4096];
    long got;
    while (n < cap && (got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
        for (long at = 0; at < got && n < cap;) {
            unsigned short reclen;
            memcpy(&reclen, buf + at + 16, sizeof reclen); /* struct linux_dirent64 */
            const char *name = buf + at + 19;
            if (name[0] >= '1' && name[0] <= '9') tids[n++] = strtol(name, NULL, 10);
            at += reclen;
        }
    close(dir);
    return n;
}

/* Close debug register k's events; the stores they counted. */
static long point_close(int k) {
    long stores = 0;
    for (int t = 0; t < point_fds[k]; t++) {
        long long v = 0;
        if (read(point_fd[k][t], &v, sizeof v) == (ssize_t)sizeof v && v > 0) stores += (long)v;
        close(point_fd[k][t]);
    }
    point_fds[k] = 0;
    point_owner[k] = 0;
    return stores;
}

/* Arm free debug registers over watch slot `slot`'s send buffer on every thread (watch_lock
 * held): the registers armed, or -errno when perf_event_open is refused (none armed). */
static int watch_arm(int slot) {
    if (watch_refused) return -watch_refused;
    if (watch_off) return 0;
    uintptr_t p = (uintptr_t)watches[slot].at, end = p + watches[slot].n;
    long tids[HL_WATCH_TASKS];
    int tasks = watch_tasks(tids, HL_WATCH_TASKS), armed = 0;
    if (tasks <= 0) tids[0] = 0, tasks = 1; /* no /proc: the calling thread (and its new ones) */
    for (int k = 0; k < HL_WATCH_POINTS && p < end; k++) {
        if (point_owner[k]) continue;
        uintptr_t len = 8;
        while (len > 1 && (p % len || p + len > end)) len /= 2;
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.type = PERF_TYPE_BREAKPOINT;
        a.size = sizeof a;
        a.bp_type = HW_BREAKPOINT_W;
        a.bp_addr = p;
        a.bp_len = len;
        a.exclude_hv = 1;
        a.inherit = 1;
        int err = 0;
        point_fds[k] = 0;
        for (int t = 0; t < tasks && !err; t++) {
            a.exclude_kernel = watch_user_only;
            long fd = syscall(SYS_perf_event_open, &a, (pid_t)tids[t], -1, -1, PERF_FLAG_FD_CLOEXEC);
            if (fd < 0 && !watch_user_only && (errno == EACCES || errno == EPERM)) {
                watch_user_only = 1; /* the kernel's stores not ours to watch: the user's */
                a.exclude_kernel = 1;
                fd = syscall(SYS_perf_event_open, &a, (pid_t)tids[t], -1, -1, PERF_FLAG_FD_CLOEXEC);
            }
            if (fd >= 0) {
                point_tid[k][point_fds[k]] = tids[t];
                point_fd[k][point_fds[k]++] = (int)fd;
            }
            else if (errno != ESRCH) err = errno; /* ESRCH: a thread that ended */
        }
        if (err || point_fds[k] == 0) {
            point_owner[k] = 1; /* (point_close frees it) */
            (void)point_close(k);
            if (err == ENOSPC || err == EBUSY || err == EMFILE || err == ENFILE) break; /* busy */
            if (!armed) watch_refused = err ? err : ESRCH;
            watches[slot].watched = (size_t)(p - (uintptr_t)watches[slot].at);
            return armed ? armed : -watch_refused;
        }
        point_owner[k] = slot + 1;
        armed++;
        p += len;
    }
    watches[slot].watched = (size_t)(p - (uintptr_t)watches[slot].at);
    return armed;
}

/* Disarm watch slot `slot`'s debug registers (watch_lock held): the stores they counted. */
static long watch_disarm(int slot) {
    long stores = 0;
    for (int k = 0; k < HL_WATCH_POINTS; k++)
        if (point_owner[k] == slot + 1) stores += point_close(k);
    watches[slot].points = 0;
    return stores;
}

/* A posting's finish: the send buffer HL_POSTED hashed, kept under `key` (its request), its
 * first bytes watched by the debug registers. The posting's "watch": the registers armed (0:
 * none, -errno: refused); its "watched" (*watched): the bytes they cover. */
static int watch_post(int key, long *watched) {
    if (!posting_at) return 0;
    int armed = 0;
    while (atomic_flag_test_and_set(&watch_lock)) {}
    int slot = -1;
    for (int i = 0; i < HL_WATCH_SLOTS && slot < 0; i++)
        if (watches[i].used && watches[i].key == key) slot = i; /* a handle MPI reused */
    for (int i = 0; i < HL_WATCH_SLOTS && slot < 0; i++)
        if (!watches[i].used) slot = i;
    if (slot >= 0) {
        if (!watches[slot].used) atomic_fetch_add(&watch_count, 1);
        else {
            if (watches[slot].points) (void)watch_disarm(slot);
            if (watches[slot].inplace) atomic_fetch_sub(&inplace_count, 1);
        }
        /* MPI_IN_PLACE: the bytes as the posting left them (MPI may have started on them) */
        watches[slot] = (hl_watch){.used = 1, .key = key, .at = posting_at, .n = posting_n,
                                   .hash = posting_inplace ? watch_hash(posting_at, posting_n)
                                                           : posting_hash,
                                   .inplace = posting_inplace};
        if (posting_inplace) atomic_fetch_add(&inplace_count, 1);
        armed = watch_arm(slot);
        watches[slot].points = armed > 0 ? armed : 0;
        *watched = armed > 0 ? (long)watches[slot].watched : 0;
    } /* (every slot taken: this posting is not watched) */
    atomic_flag_clear(&watch_lock);
    posting_at = NULL;
    posting_inplace = 0;
    return armed;
}

/* The stores counted so far by slot `slot`'s debug registers on thread `tid` (watch_lock held),
 * -1 when none of its events watches that thread. */
static long thread_stores(int slot, long tid) {
    long stores = 0;
    int found = 0;
    for (int k = 0; k < HL_WATCH_POINTS; k++)
        if (point_owner[k] == slot + 1)
            for (int t = 0; t < point_fds[k]; t++)
                if (point_tid[k][t] == tid) {
                    long long v = 0;
                    if (read(point_fd[k][t], &v, sizeof v) == (ssize_t)sizeof v && v > 0)
                        stores += (long)v;
                    found = 1;
                }
    return found ? stores : -1;
}

/* An MPI call's start on thread `tid` (HL_DEFINE): an MPI_IN_PLACE posting's bytes changed since
 * the last MPI call ended are a change outside MPI; the thread's store counts kept. */
static void watch_enter(long tid) {
    if (atomic_load(&inplace_count) == 0) return;
    while (atomic_flag_test_and_set(&watch_lock)) {}
    for (int i = 0; i < HL_WATCH_SLOTS; i++) {
        enter_key[i] = 0;
        if (!watches[i].used || !watches[i].inplace) continue;
        uint64_t now = watch_hash(watches[i].at, watches[i].n);
        if (now != watches[i].hash) {
            watches[i].outside++;
            watches[i].hash = now;
        }
        enter_key[i] = watches[i].key + 1;
        enter_stores[i] = watches[i].points ? thread_stores(i, tid) : -1;
    }
    atomic_flag_clear(&watch_lock);
}

/* An MPI call's end on thread `tid`: the stores counted on it since its start are MPI's; the
 * bytes as MPI left them. */
static void watch_leave(long tid) {
    if (atomic_load(&inplace_count) == 0) return;
    while (atomic_flag_test_and_set(&watch_lock)) {}
    for (int i = 0; i < HL_WATCH_SLOTS; i++) {
        if (!watches[i].used || !watches[i].inplace) continue;
        if (enter_key[i] == watches[i].key + 1 && enter_stores[i] >= 0 && watches[i].points) {
            long now = thread_stores(i, tid);
            if (now >= enter_stores[i]) watches[i].mpi_stores += now - enter_stores[i];
        }
        enter_key[i] = 0;
        watches[i].hash = watch_hash(watches[i].at, watches[i].n);
    }
    atomic_flag_clear(&watch_lock);
}

/* Whether the send buffer of the watched request `key` changed (a store the debug registers
 * counted, or bytes that differ); its slot freed, the stores added to *stores (when watched by
 * hardware). 0: unchanged or not watched. (Called with watch_lock held.) */
static int watch_take(int key, long *stores) {
    for (int i = 0; i < HL_WATCH_SLOTS; i++)
        if (watches[i].used && watches[i].key == key) {
            long counted = -1;
            if (watches[i].points) counted = watch_disarm(i);
            if (counted >= 0 && watches[i].inplace) /* MPI's own stores are not the cell's */
                counted = counted > watches[i].mpi_stores ? counted - watches[i].mpi_stores : 0;
            if (counted >= 0) *stores = (*stores < 0 ? 0 : *stores) + counted;
            watches[i].used = 0;
            atomic_fetch_sub(&watch_count, 1);
            if (watches[i].inplace) { /* changed outside MPI (watch_enter); the result is MPI's */
                atomic_fetch_sub(&inplace_count, 1);
                return counted > 0 || watches[i].outside > 0;
            }
            return counted > 0 || watch_hash(watches[i].at, watches[i].n) != watches[i].hash;
        }
    return 0;
}

/* A completion's finish (c->done and c->request / c->requests set): "send_changed". */
static void watch_done(hl_trace_call *c) {
    if (atomic_load(&watch_count) == 0 || c->done <= 0) return;
    int changed = 0;
    long stores = -1;
    while (atomic_flag_test_and_set(&watch_lock)) {}
    if (c->request != -1) changed += watch_take(c->request, &stores);
    for (const char *at = c->requests; *at;) {
        char *stop;
        long key = strtol(at, &stop, 10);
        if (stop == at) break; /* "+": the list was cut */
        changed += watch_take((int)key, &stores);
        at = *stop == ',' ? stop + 1 : stop;
    }
    atomic_flag_clear(&watch_lock);
    c->send_changed = changed;
    c->send_writes = stores;
}

/* The peers an MPI_Ialltoall sends a block to, an MPI_Ineighbor_alltoall's out-neighbours (0
 * when the communicator cannot tell: nothing watched), an MPI_Ibcast's root. */
static long all_peers(MPI_Comm c) {
    int inter = 0, n = 0;
    if (c == MPI_COMM_NULL || MPI_Comm_test_inter(c, &inter) != MPI_SUCCESS) return 0;
    if (inter ? MPI_Comm_remote_size(c, &n) : MPI_Comm_size(c, &n)) return 0;
    return n;
}
/* The most of `n` counts (a v-collective's per-member counts). */
static long most(const int counts[], long n) {
    long m = 0;
    for (long i = 0; i < n; i++)
        if (counts[i] > m) m = counts[i];
    return m;
}
static long out_degree(MPI_Comm c) {
    int kind = MPI_UNDEFINED, n = 0, in = 0, out = 0, weighted = 0, me = 0;
    if (c == MPI_COMM_NULL || MPI_Topo_test(c, &kind) != MPI_SUCCESS) return 0;
    if (kind == MPI_CART) return MPI_Cartdim_get(c, &n) == MPI_SUCCESS ? 2L * n : 0;
    if (kind == MPI_DIST_GRAPH)
        return MPI_Dist_graph_neighbors_count(c, &in, &out, &weighted) == MPI_SUCCESS ? out : 0;
    if (kind == MPI_GRAPH && MPI_Comm_rank(c, &me) == MPI_SUCCESS &&
        MPI_Graph_neighbors_count(c, me, &n) == MPI_SUCCESS)
        return n;
    return 0;
}
static int is_root(MPI_Comm c, int root) {
    int inter = 0, me = -1;
    if (c == MPI_COMM_NULL || MPI_Comm_test_inter(c, &inter) != MPI_SUCCESS) return 0;
    if (inter) return root == MPI_ROOT;
    return MPI_Comm_rank(c, &me) == MPI_SUCCESS && me == root;
}

/* A neighbourhood collective's bytes to (in = 0) or from (in = 1) its neighbours that are ranks,
 * in MPI's order of them (a Cartesian grid: per dimension the -1 then the +1 neighbour, which
 * MPI_Cart_shift gives; MPI_PROC_NULL ones move nothing): `one` elements of `type` each, or
 * counts[i] of type, or of types[i]. -1 when the communicator cannot tell. */
#define HL_HOOD_MAX 64
static long hood_bytes(MPI_Comm c, int in, long one, const int counts[], MPI_Datatype type,
                       const MPI_Datatype types[]) {
    int kind = MPI_UNDEFINED, n = 0, real[HL_HOOD_MAX];
    if (c == MPI_COMM_NULL || MPI_Topo_test(c, &kind) != MPI_SUCCESS) return -1;
    if (kind == MPI_CART) {
        int dims = 0;
        if (MPI_Cartdim_get(c, &dims) != MPI_SUCCESS || 2 * dims > HL_HOOD_MAX) return -1;
        for (int d = 0; d < dims; d++) {
            int minus = MPI_PROC_NULL, plus = MPI_PROC_NULL;
            if (MPI_Cart_shift(c, d, 1, &minus, &plus) != MPI_SUCCESS) return -1;
            real[n++] = minus != MPI_PROC_NULL;
            real[n++] = plus != MPI_PROC_NULL;
        }
    } else {
        long degree = in ? -1 : out_degree(c);
        int indeg = 0, outdeg = 0, weighted = 0, me = 0, g = 0;
        if (in && kind == MPI_DIST_GRAPH &&
            MPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &weighted) == MPI_SUCCESS)
            degree = indeg;
        if (in && kind == MPI_GRAPH && MPI_Comm_rank(c, &me) == MPI_SUCCESS &&
            MPI_Graph_neighbors_count(c, me, &g) == MPI_SUCCESS)
            degree = g;
        if (degree < 0 || degree > HL_HOOD_MAX) return -1;
        for (n = 0; n < degree; n++) real[n] = 1;
    }
    long bytes = 0;
    for (int i = 0; i < n; i++) {
        if (!real[i]) continue;
        long b = type_bytes(types ? types[i] : type, counts ? counts[i] : one);
        if (b < 0) return -1;
        bytes += b;
    }
    return bytes;
}

/* ------------------------------------------------ partitioned requests with MPI_PROC_NULL
 * MPICH (5.0.2, the kit's) dies with SIGSEGV inside MPI_Psend_init and MPI_Precv_init given
 * MPI_PROC_NULL as the peer (a partitioned request with the null process, which MPI's null
 * process rule allows: its own bug, the same outside the tracer). So before the library is
 * called the rank says so on stderr, naming the call and MPI_PROC_NULL, and exits with status 1
 * (the launcher ends the other ranks; the harness shows the line), instead of a bare crash on
 * the grid's edge ranks. */
static void partitioned_peer(const char *call, int peer, int partitions) {
#ifdef MPICH_VERSION
    if (partitions <= 0 || peer != MPI_PROC_NULL) return;
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char text[640];
    int n = snprintf(text, sizeof text,
                     "hybridlab: rank %d: %s with MPI_PROC_NULL as its peer: MPICH %s crashes "
                     "(SIGSEGV) on a partitioned request (MPI_Psend_init, MPI_Precv_init) to or "
                     "from MPI_PROC_NULL, so the kit stops the run here: make partitioned "
                     "requests only with a rank (none where a neighbour is MPI_PROC_NULL, at the "
                     "grid's edges)\n",
                     rank, call, MPICH_VERSION);
    fflush(stdout);
    if (n > 0 && write(STDERR_FILENO, text, (size_t)(n < (int)sizeof text ? n : (int)sizeof text - 1)) < 0) {
        /* nothing more to say */
    }
    fflush(stderr);
    _exit(1); /* (after MPI_Abort the kit's runs still ended on SIGSEGV, reported as the crash) */
#else
    (void)call, (void)peer, (void)partitions;
#endif
}

/* --------------------------------------- matched probes (MPI_Mprobe, MPI_Improbe, MPI 3.0)
 * A matched probe takes the message it found out of matching, and MPI_Mrecv or MPI_Imrecv then
 * receives exactly that message, given only its MPI_Message (no communicator, no source). So a
 * probe that matched is recorded with the message it matched: the source MPI chose ("peer", an
 * MPI_COMM_WORLD rank, never MPI_ANY_SOURCE whatever the probe asked), its tag, its bytes
 * ("count" and "bytes") and "done" 1, and keeps them under the message's handle
 * (MPI_Message_c2f); the receive of that message is recorded as any receive, from that source,
 * with that communicator ("comm_id") and tag, its buffer, count and bytes (an MPI_Imrecv also
 * its request, "posted"). An MPI_Improbe that found nothing: "done" 0, no peer. A probe of
 * MPI_PROC_NULL matches MPI_MESSAGE_NO_PROC at once, and its receive has peer MPI_PROC_NULL. */
#define HL_MATCHED_SLOTS 1024
typedef struct {
    int used, key;     /* key: MPI_Message_c2f of the matched message */
    int peer, comm_id; /* its source (an MPI_COMM_WORLD rank) and communicator */
    int tag;
} hl_matched;
static hl_matched matched[HL_MATCHED_SLOTS];
static atomic_flag matched_lock = ATOMIC_FLAG_INIT;
static _Thread_local int probe_found, probe_source, probe_tag; /* the last probe's match */
static _Thread_local long probe_bytes;
static _Thread_local hl_matched matched_taken; /* the message a receive is given */

/* MPI_Mprobe (flag NULL: hl_trace_calls.h gives it none) or MPI_Improbe, keeping what it matched
 * (the status the caller may ignore is asked of MPI all the same). */
static int probe_matched(int s, int g, MPI_Comm c, int *flag, MPI_Message *m, MPI_Status *st) {
    MPI_Status own;
    int found = 1;
    int rc = flag ? MPI_Improbe(s, g, c, &found, m, &own) : MPI_Mprobe(s, g, c, m, &own);
    if (flag) *flag = found;
    probe_found = rc == MPI_SUCCESS && found;
    probe_source = MPI_PROC_NULL, probe_tag = g, probe_bytes = -1;
    if (probe_found) {
        int n = MPI_UNDEFINED;
        probe_source = own.MPI_SOURCE;
        probe_tag = own.MPI_TAG;
        if (MPI_Get_count(&own, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) probe_bytes = n;
        if (st != MPI_STATUS_IGNORE) *st = own;
    }
    return rc;
}

/* A probe's finish (after its record): the message it matched kept under its handle. */
static void matched_keep(const hl_trace_call *c, const MPI_Message *m) {
    if (!probe_found || *m == MPI_MESSAGE_NULL || *m == MPI_MESSAGE_NO_PROC) return;
    int key = (int)MPI_Message_c2f(*m), slot = -1;
    while (atomic_flag_test_and_set(&matched_lock)) {}
    for (int i = 0; i < HL_MATCHED_SLOTS && slot < 0; i++)
        if (matched[i].used && matched[i].key == key) slot = i; /* a handle MPI gave again */
    for (int i = 0; i < HL_MATCHED_SLOTS && slot < 0; i++)
        if (!matched[i].used) slot = i;
    if (slot >= 0) /* (every slot taken: the receive of this one is recorded without a peer) */
        matched[slot] = (hl_matched){.used = 1, .key = key, .peer = c->peer,
                                     .comm_id = c->comm_id, .tag = c->tag};
    atomic_flag_clear(&matched_lock);
}

/* Before a receive of a matched message: what its probe kept (taken out), or no peer. */
static void matched_take(const MPI_Message *m) {
    matched_taken = (hl_matched){.peer = HL_PEER_NONE, .comm_id = -1, .tag = MPI_UNDEFINED};
    if (*m == MPI_MESSAGE_NULL || *m == MPI_MESSAGE_NO_PROC) return;
    int key = (int)MPI_Message_c2f(*m);
    while (atomic_flag_test_and_set(&matched_lock)) {}
    for (int i = 0; i < HL_MATCHED_SLOTS; i++)
        if (matched[i].used && matched[i].key == key) {
            matched_taken = matched[i];
            matched[i].used = 0;
            break;
        }
    atomic_flag_clear(&matched_lock);
}

/* A matched receive's end: its probe's source, communicator and tag, its `count` of `type`. */
static void trace_end_matched(hl_trace_call *c, long count, MPI_Datatype type) {
    double end = hl_now();
    c->comm_id = matched_taken.comm_id;
    c->tag = matched_taken.tag;
    c->count = count;
    c->peer = matched_taken.peer;
    c->bytes = type_bytes(type, count);
    if (c->posting) c->posted = (int)MPI_Request_c2f(*c->posting);
    receive_ended(c, count, type);
    trace_keep(c, end);
}

/* --------------------------------------------- what a student's receive held (lab 01)
 * With a kernel's receive hook (hl_trace_on_student_receive), each of the student's receives is
 * read the moment MPI reports it complete, before the call returns to the student: a blocking
 * receive (MPI_Recv, MPI_Sendrecv(_replace), MPI_Mrecv) at its end, a non-blocking one
 * (MPI_Irecv, MPI_Imrecv, MPI_Isendrecv(_replace)) kept by its request and read by the Wait or
 * Test that reports that request done, a persistent one (MPI_Recv_init, MPI_Precv_init) at every
 * completion of its request until MPI_Request_free. Only what the receive got is read: the
 * elements its status counts (the tracer's own status, status_lend, whatever the caller passed;
 * none when cancelled). Each reading is filed under the thread that posted the receive (started
 * it, for a persistent one), whichever thread's call completed it, with the bytes it got:
 * "THREAD/BYTES/TEXT", TEXT the hook's. The readings go into the completing call's record
 * ("held", comma-separated, cut with "+"), written to the stream at once, so no later store
 * changes them. A receive the tracer could not keep (every slot taken) and a receive request
 * freed before it completed are never read: the record of the call that posted (set up) or freed
 * it says so ("unread" 1). */
#define HL_RECEIVE_SLOTS 1024
typedef struct {
    int used, key, persistent; /* key: MPI_Request_c2f of the receive's request */
    int thread; /* the thread that posted it (a persistent one: set it up, then started it) */
    int active; /* a persistent one: started and not completed since */
    const void *at;
    long count;
    MPI_Datatype type;
} hl_receive;
static hl_receive receives[HL_RECEIVE_SLOTS];
static atomic_flag receive_lock = ATOMIC_FLAG_INIT;

/* The elements of its type that receive `r` got, by its status `s` (0 without one). */
static long received_count(const hl_receive *r, const MPI_Status *s) {
    int bytes = 0, size = 0, cancelled = 0;
    if (!s || MPI_Test_cancelled(s, &cancelled) != MPI_SUCCESS || cancelled) return 0;
    if (MPI_Get_count(s, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes == MPI_UNDEFINED) return 0;
    if (MPI_Type_size(r->type, &size) != MPI_SUCCESS || size <= 0) return 0;
    return bytes / size < r->count ? bytes / size : r->count;
}

/* Reading what `r` got (its status `s`) now: "THREAD/BYTES/" and the hook's text appended to
 * c->held (nothing for a receive that got nothing). */
static void receive_read(hl_trace_call *c, const hl_receive *r, const MPI_Status *s) {
    char text[HL_TRACE_COMM_CHARS];
    long got = received_count(r, s);
    int n = got > 0 ? F.receive_hook(r->at, got, r->type, text, sizeof text) : 0;
    if (n <= 0) return;
    size_t used = strlen(c->held);
    if (used && c->held[used - 1] == '+') return; /* the field was cut already */
    int k = snprintf(c->held + used, sizeof c->held - used, "%s%d/%ld/%.*s", used ? "," : "",
                     r->thread, type_bytes(r->type, got), n, text);
    if (k < 0 || used + (size_t)k >= sizeof c->held - 2)
        snprintf(c->held + used, sizeof c->held - used, "%s+", used ? "," : "");
}

/* A receive's request `key`, posted (set up) by `thread`, kept until its completion (a handle
 * MPI gave again replaces it): 0 when every slot is taken. */
static int receive_keep(int key, int thread, const void *at, long count, MPI_Datatype type,
                        int persistent) {
    int slot = -1;
    while (atomic_flag_test_and_set(&receive_lock)) {}
    for (int i = 0; i < HL_RECEIVE_SLOTS && slot < 0; i++)
        if (receives[i].used && receives[i].key == key) slot = i;
    for (int i = 0; i < HL_RECEIVE_SLOTS && slot < 0; i++)
        if (!receives[i].used) slot = i;
    if (slot >= 0)
        receives[slot] = (hl_receive){.used = 1, .key = key, .persistent = persistent,
                                      .thread = thread, .at = at, .count = count, .type = type};
    atomic_flag_clear(&receive_lock);
    return slot >= 0;
}

/* The kept receive of request `key` (taken out unless persistent, or `drop`; a persistent one
 * inactive again): 1 when found. */
static int receive_take(int key, hl_receive *out, int drop) {
    int found = 0;
    while (atomic_flag_test_and_set(&receive_lock)) {}
    for (int i = 0; i < HL_RECEIVE_SLOTS && !found; i++)
        if (receives[i].used && receives[i].key == key) {
            *out = receives[i];
            if (drop || !receives[i].persistent) receives[i].used = 0;
            receives[i].active = 0;
            found = 1;
        }
    atomic_flag_clear(&receive_lock);
    return found;
}

/* The `n` requests `r` an MPI_Start or MPI_Startall is given (HL_STARTING in `args`): each kept
 * persistent receive among them now posted by the calling thread, and active. */
static MPI_Request *receive_starting(const hl_trace_call *c, int n, MPI_Request *r) {
    if (!F.receive_hook) return r;
    while (atomic_flag_test_and_set(&receive_lock)) {}
    for (int j = 0; j < n; j++) {
        int key = request_id(r[j]);
        for (int i = 0; i < HL_RECEIVE_SLOTS && key != -1; i++)
            if (receives[i].used && receives[i].key == key && receives[i].persistent) {
                receives[i].thread = c->thread;
                receives[i].active = 1;
                break;
            }
    }
    atomic_flag_clear(&receive_lock);
    return r;
}
#define HL_STARTING(n, r) receive_starting(&c_, (n), (r))

/* A point-to-point call's end: a student's blocking receive read now (`count` of `type` in its
 * buffer, what its status counts of them), a non-blocking one or a persistent receive's set-up
 * kept by its request ("unread" when it cannot be). */
static void receive_ended(hl_trace_call *c, long count, MPI_Datatype type) {
    if (!c->student || !F.receive_hook || !c->buffer) return;
    const void *at = (const void *)(uintptr_t)c->buffer;
    if (c->request != -1) { /* a persistent (partitioned) set-up: a receive's is kept */
        if (strstr(c->call, "ecv_init"))
            c->unread = !receive_keep(c->request, c->thread, at,
                                      count * (c->partitions > 0 ? c->partitions : 1), type, 1);
    } else if (c->posting) {
        if (c->posted != -1) c->unread = !receive_keep(c->posted, c->thread, at, count, type, 0);
    } else {
        hl_receive now = {.thread = c->thread, .at = at, .count = count, .type = type};
        receive_read(c, &now, status_lent(c, 0));
    }
}

/* A completion's finish (c->done, c->request and c->requests set): each kept receive it
 * completed read, by the status MPI wrote for it; an MPI_Request_free drops its request's
 * ("unread" when that receive had not completed). */
static void receive_done(hl_trace_call *c) {
    if (!F.receive_hook) return;
    hl_receive r;
    if (!strcmp(c->call, "MPI_Request_free")) {
        if (receive_take(c->request, &r, 1) && (!r.persistent || r.active)) c->unread = 1;
        return;
    }
    if (c->done <= 0) return;
    if (c->request != -1 && receive_take(c->request, &r, 0)) receive_read(c, &r, status_lent(c, 0));
    int k = 0; /* the k-th request listed: its status the k-th lent */
    for (const char *at = c->requests; *at; k++) {
        char *stop;
        long key = strtol(at, &stop, 10);
        if (stop == at) break; /* "+": the list was cut */
        if (key != -1 && receive_take((int)key, &r, 0)) receive_read(c, &r, status_lent(c, k));
        at = *stop == ',' ? stop + 1 : stop;
    }
}

/* Each entry twice: prefix hl_traced_ (a student's unit: student 1) and hl_kit_ (student 0). */
#define HL_BOTH(DEFINE, ...) DEFINE(hl_traced_, 1, __VA_ARGS__) DEFINE(hl_kit_, 0, __VA_ARGS__)

/* One entry: the call recorded around `real args`; `before` (an expression of c_) keeps what the
 * call will change (the request a Wait completes), `finish` (an expression of c_) ends the entry:
 * trace_end(&c_), after keeping what the call did (a completion, a communicator, a tag). */
#define HL_DEFINE(prefix, student, entry, name, real, params, args, before, finish)             \
    int prefix##entry params {                                                                    \
        hl_trace_call c_;                                                                         \
        trace_begin(&c_, name, student);                                                          \
        watch_enter(c_.tid);                                                                      \
        before;                                                                                   \
        int rc_ = real args;                                                                      \
        watch_leave(c_.tid);                                                                      \
        finish;                                                                                   \
        return rc_;                                                                               \
    }
#define HL_DEFINE_QUERY(prefix, student, type, entry, real, params, args)                       \
    type prefix##entry params { return real args; }
/* A point-to-point call's finish (`rcount` -1: no receive side). */
#define HL_P2P_FINISH(comm, tag_, count_, type_, peer_, rcount_, rtype_, rpeer_)                 \
    trace_end_p2p(&c_, comm, tag_, (long)(count_), type_, peer_, (long)(rcount_), rtype_, rpeer_)
/* A partitioned call's finish: the partitions low..high of `request` it names. */
#define HL_PART_FINISH(low, high, request_)                                                       \
    (c_.partition = (low), c_.partition_last = (high), c_.request = (int)MPI_Request_c2f(request_), \
     trace_end(&c_))

#define HL_TRACED(name, params, args)                                                             \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0, trace_end(&c_))
#define HL_TRACED_COMM(name, params, args, comm)                                                  \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            trace_end_comm(&c_, comm))
#define HL_TRACED_ICOMM(name, params, args, comm, request_)                                       \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            (c_.request = (int)MPI_Request_c2f(request_),                                         \
             c_.watch = watch_post(c_.request, &c_.watched),                                      \
             trace_end_comm(&c_, comm)))
/* a neighbourhood collective: the bytes it sends and receives (hood_bytes), and a non-blocking
 * one's request */
#define HL_TRACED_HOOD(name, params, args, comm, sent_, received_)                                \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            (c_.bytes = (sent_), c_.recv_bytes = (received_), trace_end_comm(&c_, comm)))
#define HL_TRACED_IHOOD(name, params, args, comm, sent_, received_, request_)                     \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            (c_.request = (int)MPI_Request_c2f(request_),                                         \
             c_.watch = watch_post(c_.request, &c_.watched),                                      \
             c_.bytes = (sent_), c_.recv_bytes = (received_), trace_end_comm(&c_, comm)))
#define HL_TRACED_SENT(name, params, args, comm, count_, type_)                                  \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            trace_end_sent(&c_, comm, (long)(count_), type_))
#define HL_TRACED_ISENT(name, params, args, comm, count_, type_, request_)                        \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            (c_.request = (int)MPI_Request_c2f(request_),                                         \
             c_.watch = watch_post(c_.request, &c_.watched),                                      \
             trace_end_sent(&c_, comm, (long)(count_), type_)))
#define HL_TRACED_REDUCE(name, params, args, comm, count_, type_, request_)                     \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            (c_.watch = watch_post(request_, &c_.watched),                                        \
             trace_end_reduce(&c_, comm, (long)(count_), type_, request_)))
/* a completion of several: the requests as they were given */
#define HL_TRACED_WAITALL(name, params, args, flag, count, array)                                 \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args,                        \
            trace_requests(&c_, count, array),                                                    \
            (c_.done = (flag), watch_done(&c_), receive_done(&c_), trace_end(&c_)))
/* a completion of one request: the request as it was given (a Wait sets it to MPI_REQUEST_NULL) */
#define HL_TRACED_WAIT(name, params, args, flag, request_)                                        \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args,                        \
            (c_.request = request_id(request_), c_.live = c_.request != -1),                      \
            (c_.done = (flag), watch_done(&c_), receive_done(&c_), trace_end(&c_)))
/* a completion of some of several: the requests it completed ("requests"), of those given */
#define HL_TRACED_SOME(name, params, args, flag, count, array, kept, indices)                    \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args,                        \
            trace_requests(&c_, count, array),                                                    \
            (keep_completed(&c_, (kept), (indices)), c_.done = (flag), watch_done(&c_),           \
             receive_done(&c_), trace_end(&c_)))
#define HL_TRACED_P2P(name, params, args, comm, tag_, count_, type_, peer_)                       \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            HL_P2P_FINISH(comm, tag_, count_, type_, peer_, -1, MPI_DATATYPE_NULL, MPI_PROC_NULL))
#define HL_TRACED_SENDRECV(name, params, args, comm, tag_, count_, type_, peer_, rcount_, rtype_,  \
                           rpeer_)                                                                \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            HL_P2P_FINISH(comm, tag_, count_, type_, peer_, rcount_, rtype_, rpeer_))
#define HL_TRACED_P2P_AS(entry, name, real, params, args, comm, tag_, count_, type_, peer_)       \
    HL_BOTH(HL_DEFINE, entry, name, real, params, args, (void)0,                                  \
            HL_P2P_FINISH(comm, tag_, count_, type_, peer_, -1, MPI_DATATYPE_NULL, MPI_PROC_NULL))
#define HL_TRACED_PSETUP(name, params, args, comm, tag_, count_, type_, peer_, parts, request_,   \
                         buffer_)                                                                 \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args,                        \
            partitioned_peer("MPI_" #name, peer_, parts),                                         \
            (c_.partitions = (parts), c_.request = (int)MPI_Request_c2f(request_),                \
             c_.buffer = (unsigned long)(uintptr_t)(buffer_),                                     \
             HL_P2P_FINISH(comm, tag_, count_, type_, peer_, -1, MPI_DATATYPE_NULL,               \
                           MPI_PROC_NULL)))
#define HL_TRACED_PART(name, params, args, low, high, request_, flag)                             \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            (c_.done = (flag), HL_PART_FINISH(low, high, request_)))
/* a matched probe (its finish keeps what it matched, matched_keep) and the receive of the message
 * it matched (before the call: the message's source, communicator and tag, matched_take) */
#define HL_TRACED_PROBE(name, params, args, comm, message)                                        \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, probe_matched, params, args, (void)0,            \
            (c_.done = probe_found,                                                               \
             HL_P2P_FINISH(comm, probe_tag, probe_bytes, MPI_BYTE, probe_source, -1,              \
                           MPI_DATATYPE_NULL, MPI_PROC_NULL),                                     \
             matched_keep(&c_, message)))
#define HL_TRACED_MRECV(name, params, args, count_, type_, message)                               \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args,                        \
            matched_take(message), trace_end_matched(&c_, (long)(count_), type_))
/* A window synchronisation's assert in bits that do not depend on the MPI library: 1 NOCHECK,
 * 2 NOSTORE, 4 NOPUT, 8 NOPRECEDE, 16 NOSUCCEED (32: a bit MPI does not define). */
static int window_mode(int assert_) {
    static const int modes[] = {MPI_MODE_NOCHECK, MPI_MODE_NOSTORE, MPI_MODE_NOPUT,
                                MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED};
    int bits = 0;
    for (int k = 0; k < 5; k++)
        if (assert_ & modes[k]) {
            bits |= 1 << k;
            assert_ &= ~modes[k];
        }
    return bits | (assert_ ? 32 : 0);
}
#define HL_TRACED_MODE(name, params, args, mode_)                                                 \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            (c_.mode = window_mode(mode_), trace_end(&c_)))
/* A shared window's query (lab 11): the rank it names as an MPI_COMM_WORLD rank ("peer") and
 * the segment MPI returned, its base ("buffer") and bytes ("bytes"), read after the call's end
 * is taken. */
static void trace_end_shared(hl_trace_call *c, int rc, MPI_Win win, int rank, MPI_Aint size,
                             const void *base) {
    double end = hl_now();
    if (rc == MPI_SUCCESS && rank != MPI_PROC_NULL) {
        int w = MPI_UNDEFINED;
        MPI_Group group, world;
        MPI_Win_get_group(win, &group);
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_translate_ranks(group, 1, &rank, world, &w);
        MPI_Group_free(&group);
        MPI_Group_free(&world);
        c->peer = w == MPI_UNDEFINED ? HL_PEER_NONE : w;
        c->bytes = (long)size;
        c->buffer = (unsigned long)(uintptr_t)base;
    }
    trace_keep(c, end);
}
#define HL_TRACED_SHARED(name, params, args, win, rank, size_, base_)                           \
    HL_BOTH(HL_DEFINE, MPI_##name, "MPI_" #name, MPI_##name, params, args, (void)0,               \
            trace_end_shared(&c_, rc_, win, rank, rc_ == MPI_SUCCESS ? *(size_) : 0,              \
                             rc_ == MPI_SUCCESS ? *(void **)(base_) : NULL))
#define HL_QUERY(type, name, params, args)                                                        \
    HL_BOTH(HL_DEFINE_QUERY, type, MPI_##name, MPI_##name, params, args)

#include "hl_trace_calls.h"

/* MPI_Abort ends the process without flushing stdio: a reason printed with printf just before
 * would be lost ("exited with status 255" and nothing else), so the buffers are flushed first. */
static int abort_flushed(MPI_Comm c, int code) {
    fflush(stdout);
    fflush(stderr);
    return MPI_Abort(c, code);
}
HL_BOTH(HL_DEFINE, MPI_Abort, "MPI_Abort", abort_flushed, (MPI_Comm c, int code), (c, code),
        (void)0, trace_end(&c_))

/* ------------------------------------------- the thread level: asked of MPI, shown to code */
static int required_level = -1, provided_level = -1; /* provided: the level code is shown */

/* HL_PROVIDE_AT_MOST=funneled: the program sees at most FUNNELED, whatever MPI gave */
static int capped(int provided) {
    const char *cap = getenv("HL_PROVIDE_AT_MOST");
    static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};
    for (int i = 0; cap && i < 4; i++)
        if (!strcmp(cap, hl_level_name(levels[i])) && provided > levels[i]) return levels[i];
    return provided;
}

/* MPI started for a traced kernel or program. MPI itself is asked for MULTIPLE whatever was
 * `required`: code that breaks its level (threads inside MPI at once under SERIALIZED) is then
 * recorded and judged (hybridlab.runs.compliance) instead of corrupting an MPI that takes no
 * locks and dying in an assertion. The code is shown the level it asked for, as MPICH and Open
 * MPI give it (at most what MPI has, at most HL_PROVIDE_AT_MOST): in *provided and by
 * MPI_Query_thread. */
/* The process's resident memory now (KiB, /proc/self/statm), -1 where it cannot be read */
static long resident_kb(void) {
    long pages = -1, size;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &pages) != 2) pages = -1;
        fclose(f);
    }
    return pages < 0 ? -1 : pages * (sysconf(_SC_PAGESIZE) / 1024);
}

int hl_trace_init_thread(int *argc, char ***argv, int required, int *provided) {
    int real = MPI_THREAD_SINGLE;
    long before = resident_kb();
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &real);
    long after = resident_kb();
    required_level = required;
    provided_level = rc == MPI_SUCCESS ? capped(required < real ? required : real) : -1;
    struct timespec cpu;
    struct rusage use;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    getrusage(RUSAGE_SELF, &use);
    unsealed(1);
    F.init_cpu_ns = cpu.tv_sec * 1000000000L + cpu.tv_nsec;
    F.init_rss_kb = use.ru_maxrss;
    F.mpi_rss_kb = before < 0 || after < before ? 0 : after - before;
    unsealed(0);
    nudge_read();
    if (rc == MPI_SUCCESS) *provided = provided_level;
    hl_trace_reset();
    return rc;
}

/* The level the code was shown (hl_trace_init_thread); MPI_Query_thread gives it too */
int hl_trace_query_thread(int *level) {
    int rc = MPI_Query_thread(level);
    if (rc == MPI_SUCCESS && provided_level >= 0) *level = provided_level;
    return rc;
}
HL_BOTH(HL_DEFINE, MPI_Query_thread, "MPI_Query_thread", hl_trace_query_thread, (int *level), (level),
        (void)0, trace_end(&c_))

/* ------------------------------------------------ a whole program: its own main (see above) */
int hl_traced_MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    return hl_trace_init_thread(argc, argv, required, provided);
}

int hl_traced_MPI_Init(int *argc, char ***argv) {
    int provided;
    return hl_traced_MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}

/* ------------------------------------- who took a work-sharing loop's iterations (lab 10)
 * A whole program is linked with -Wl,--wrap for libgomp's entry points that hand out a
 * runtime-scheduled loop's chunks (schedule dynamic, guided or runtime: hybridlab.slurm.jobs
 * WHOLE_PROGRAM, LOOP_WRAPPED): the program's calls of GOMP_loop_*_start and _next reach these
 * wrappers, which call libgomp's own (__real_) and add each chunk handed out to the calling OS
 * thread's count for that loop (its site: where the thread's _start was called, or its _next for
 * a combined parallel loop; in the loop variable's units). At MPI_Finalize one "loop_share"
 * record per (site, thread): a thread that never reaches the loop, or reaches it after another
 * thread took every chunk, shows nothing there, whatever CPU it burns elsewhere. The counts are
 * the tracer's (static, hidden); the program names no GOMP_ entry (unit_checks). Elsewhere the
 * __real_ names are weak and never called. Loops of a static schedule call no libgomp function
 * to get their iterations and are not seen here. */
#define HL_LOOP_SITES 32
#define HL_LOOP_THREADS 64
static atomic_ulong loop_site[HL_LOOP_SITES];                     /* 0: a free slot */
static atomic_long loop_units[HL_LOOP_SITES][HL_LOOP_THREADS];    /* iterations each thread took */
static atomic_long loop_tid[HL_LOOP_THREADS];                     /* each slot's OS thread */
static atomic_int loop_threads;
static _Thread_local int loop_slot = -1;       /* this thread's column */
static _Thread_local int loop_current = -1;    /* the site of the loop this thread is in */

static int loop_site_of(unsigned long at) {
    for (int i = 0; i < HL_LOOP_SITES; i++) {
        unsigned long seen = atomic_load(&loop_site[i]);
        if (seen == at) return i;
        if (!seen) {
            unsigned long none = 0;
            if (atomic_compare_exchange_strong(&loop_site[i], &none, at) || none == at) return i;
        }
    }
    return -1;
}

static void loop_took(unsigned long at, int start, unsigned long long units) {
    if (loop_slot < 0) {
        int slot = atomic_fetch_add(&loop_threads, 1);
        if (slot >= HL_LOOP_THREADS) return;
        atomic_store(&loop_tid[slot], (long)syscall(SYS_gettid));
        loop_slot = slot;
    }
    if (start || loop_current < 0) loop_current = loop_site_of(at);
    if (loop_current >= 0 && loop_slot < HL_LOOP_THREADS)
        atomic_fetch_add(&loop_units[loop_current][loop_slot], (long)units);
}

#define HL_SPAN(s, e) ((e) > (s) ? (unsigned long long)((e) - (s)) : (unsigned long long)((s) - (e)))
#define HL_HERE ((unsigned long)(uintptr_t)__builtin_return_address(0))
#define HL_LOOP_START(name, params, args, type)                                                    \
    extern bool __real_##name params __attribute__((weak));                                       \
    bool __wrap_##name params;                                                                     \
    bool __wrap_##name params {                                                                    \
        bool got = __real_##name args;                                                             \
        loop_current = -1;                                                                         \
        if (got) loop_took(HL_HERE, 1, HL_SPAN(*istart, *iend));                                   \
        return got;                                                                                \
    }
#define HL_LOOP_NEXT(name, type)                                                                   \
    extern bool __real_##name(type *, type *) __attribute__((weak));                              \
    bool __wrap_##name(type *istart, type *iend);                                                  \
    bool __wrap_##name(type *istart, type *iend) {                                                 \
        bool got = __real_##name(istart, iend);                                                    \
        if (got) loop_took(HL_HERE, 0, HL_SPAN(*istart, *iend));                                   \
        return got;                                                                                \
    }
/* loop_waits: the loop ends this thread passed that wait for the team (lab 12 (d) counts them
 * with its team barriers: hl_trace_loop_waits, thread_halo.c) */
static _Thread_local long loop_waits;
long hl_trace_loop_waits(void);
long hl_trace_loop_waits(void) { return loop_waits; }
#define HL_LOOP_END(name, waits)                                                                   \
    extern void __real_##name(void) __attribute__((weak));                                        \
    void __wrap_##name(void);                                                                      \
    void __wrap_##name(void) {                                                                     \
        loop_current = -1;                                                                         \
        loop_waits += (waits);                                                                     \
        __real_##name();                                                                           \
    }
typedef unsigned long long hl_ull;
#define HL_L4 (long s, long e, long i, long c, long *istart, long *iend)
#define HL_L4A (s, e, i, c, istart, iend)
#define HL_L3 (long s, long e, long i, long *istart, long *iend)
#define HL_L3A (s, e, i, istart, iend)
#define HL_U4 (bool up, hl_ull s, hl_ull e, hl_ull i, hl_ull c, hl_ull *istart, hl_ull *iend)
#define HL_U4A (up, s, e, i, c, istart, iend)
#define HL_U3 (bool up, hl_ull s, hl_ull e, hl_ull i, hl_ull *istart, hl_ull *iend)
#define HL_U3A (up, s, e, i, istart, iend)
HL_LOOP_START(GOMP_loop_dynamic_start, HL_L4, HL_L4A, long)
HL_LOOP_START(GOMP_loop_guided_start, HL_L4, HL_L4A, long)
HL_LOOP_START(GOMP_loop_nonmonotonic_dynamic_start, HL_L4, HL_L4A, long)
HL_LOOP_START(GOMP_loop_nonmonotonic_guided_start, HL_L4, HL_L4A, long)
HL_LOOP_START(GOMP_loop_runtime_start, HL_L3, HL_L3A, long)
HL_LOOP_START(GOMP_loop_nonmonotonic_runtime_start, HL_L3, HL_L3A, long)
HL_LOOP_START(GOMP_loop_maybe_nonmonotonic_runtime_start, HL_L3, HL_L3A, long)
HL_LOOP_START(GOMP_loop_start, (long s, long e, long i, long k, long c, long *istart, long *iend,
                                uintptr_t *r, void **m), (s, e, i, k, c, istart, iend, r, m), long)
HL_LOOP_START(GOMP_loop_ull_dynamic_start, HL_U4, HL_U4A, hl_ull)
HL_LOOP_START(GOMP_loop_ull_guided_start, HL_U4, HL_U4A, hl_ull)
HL_LOOP_START(GOMP_loop_ull_nonmonotonic_dynamic_start, HL_U4, HL_U4A, hl_ull)
HL_LOOP_START(GOMP_loop_ull_nonmonotonic_guided_start, HL_U4, HL_U4A, hl_ull)
HL_LOOP_START(GOMP_loop_ull_runtime_start, HL_U3, HL_U3A, hl_ull)
HL_LOOP_START(GOMP_loop_ull_nonmonotonic_runtime_start, HL_U3, HL_U3A, hl_ull)
HL_LOOP_START(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, HL_U3, HL_U3A, hl_ull)
HL_LOOP_START(GOMP_loop_ull_start, (bool up, hl_ull s, hl_ull e, hl_ull i, long k, hl_ull c,
                                    hl_ull *istart, hl_ull *iend, uintptr_t *r, void **m),
              (up, s, e, i, k, c, istart, iend, r, m), hl_ull)
HL_LOOP_NEXT(GOMP_loop_dynamic_next, long)
HL_LOOP_NEXT(GOMP_loop_guided_next, long)
HL_LOOP_NEXT(GOMP_loop_runtime_next, long)
HL_LOOP_NEXT(GOMP_loop_nonmonotonic_dynamic_next, long)
HL_LOOP_NEXT(GOMP_loop_nonmonotonic_guided_next, long)
HL_LOOP_NEXT(GOMP_loop_nonmonotonic_runtime_next, long)
HL_LOOP_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next, long)
HL_LOOP_NEXT(GOMP_loop_ull_dynamic_next, hl_ull)
HL_LOOP_NEXT(GOMP_loop_ull_guided_next, hl_ull)
HL_LOOP_NEXT(GOMP_loop_ull_runtime_next, hl_ull)
HL_LOOP_NEXT(GOMP_loop_ull_nonmonotonic_dynamic_next, hl_ull)
HL_LOOP_NEXT(GOMP_loop_ull_nonmonotonic_guided_next, hl_ull)
HL_LOOP_NEXT(GOMP_loop_ull_nonmonotonic_runtime_next, hl_ull)
HL_LOOP_NEXT(GOMP_loop_ull_maybe_nonmonotonic_runtime_next, hl_ull)
HL_LOOP_END(GOMP_loop_end, 1)
HL_LOOP_END(GOMP_loop_end_nowait, 0)
extern bool __real_GOMP_loop_end_cancel(void) __attribute__((weak));
bool __wrap_GOMP_loop_end_cancel(void);
bool __wrap_GOMP_loop_end_cancel(void) {
    loop_current = -1;
    loop_waits++;
    return __real_GOMP_loop_end_cancel();
}

/* ------------------------------------------- where each thread of a team ran (lab 10 (a))
 * A whole program is also linked with --wrap for libgomp's entry points that start a parallel
 * region (hybridlab.slurm.jobs PARALLEL_WRAPPED): the wrapper hands libgomp a trampoline that, on
 * every thread of an outermost team, notes the CPU the thread runs on (sched_getcpu) when its part
 * of the region begins and when it ends, under its OpenMP thread number, then runs the region's
 * own function. At MPI_Finalize one "thread_place" record per thread number seen: the CPUs it ran
 * on, what the program's place lines must say. (Not GOMP_parallel_reductions, a region with task
 * reductions: libgomp reads their list from the first word of the region's data.) */
#define HL_PLACE_THREADS 64
#define HL_PLACE_WORDS (CPU_SETSIZE / 64)
static atomic_ulong place_seen[HL_PLACE_THREADS][HL_PLACE_WORDS]; /* a bit per CPU a thread ran on */

typedef struct {
    void (*fn)(void *);
    void *data;
} hl_region;

static void place_note(void) {
    int t = omp_get_thread_num(), cpu = sched_getcpu();
    if (omp_get_level() == 1 && t < HL_PLACE_THREADS && cpu >= 0 && cpu < CPU_SETSIZE)
        atomic_fetch_or(&place_seen[t][cpu / 64], 1UL << (cpu % 64));
}

static void placed_region(void *region) {
    const hl_region *r = region;
    place_note();
    r->fn(r->data);
    place_note();
}

#define HL_PARALLEL(name, params, args)                                                            \
    extern void __real_##name params __attribute__((weak));                                       \
    void __wrap_##name params;                                                                     \
    void __wrap_##name params {                                                                    \
        hl_region region = {fn, data};                                                             \
        __real_##name args;                                                                        \
    }
#define HL_P_LOOP (void (*fn)(void *), void *data, unsigned t, long s, long e, long i, long c, unsigned f)
#define HL_P_LOOPA (placed_region, &region, t, s, e, i, c, f)
#define HL_P_RUNTIME (void (*fn)(void *), void *data, unsigned t, long s, long e, long i, unsigned f)
#define HL_P_RUNTIMEA (placed_region, &region, t, s, e, i, f)
HL_PARALLEL(GOMP_parallel, (void (*fn)(void *), void *data, unsigned t, unsigned f), (placed_region, &region, t, f))
HL_PARALLEL(GOMP_parallel_sections, (void (*fn)(void *), void *data, unsigned t, unsigned count, unsigned f),
            (placed_region, &region, t, count, f))
HL_PARALLEL(GOMP_parallel_loop_static, HL_P_LOOP, HL_P_LOOPA)
HL_PARALLEL(GOMP_parallel_loop_dynamic, HL_P_LOOP, HL_P_LOOPA)
HL_PARALLEL(GOMP_parallel_loop_guided, HL_P_LOOP, HL_P_LOOPA)
HL_PARALLEL(GOMP_parallel_loop_nonmonotonic_dynamic, HL_P_LOOP, HL_P_LOOPA)
HL_PARALLEL(GOMP_parallel_loop_nonmonotonic_guided, HL_P_LOOP, HL_P_LOOPA)
HL_PARALLEL(GOMP_parallel_loop_runtime, HL_P_RUNTIME, HL_P_RUNTIMEA)
HL_PARALLEL(GOMP_parallel_loop_nonmonotonic_runtime, HL_P_RUNTIME, HL_P_RUNTIMEA)
HL_PARALLEL(GOMP_parallel_loop_maybe_nonmonotonic_runtime, HL_P_RUNTIME, HL_P_RUNTIMEA)

/* the "thread_place" records: each thread number's CPUs, e.g. "cpus":"3" ("2,3" if it moved) */
static void thread_places(hl_ctx *ctx) {
    char line[200], cpus[120];
    for (int t = 0; t < HL_PLACE_THREADS; t++) {
        int used = 0;
        for (int c = 0; c < CPU_SETSIZE && used < (int)sizeof cpus - 12; c++)
            if (atomic_load(&place_seen[t][c / 64]) & (1UL << (c % 64)))
                used += snprintf(cpus + used, sizeof cpus - (size_t)used, used ? ",%d" : "%d", c);
        if (!used) continue;
        int n = snprintf(line, sizeof line,
                         "{\"rank\":%d,\"record\":\"thread_place\",\"thread\":%d,\"cpus\":\"%s\"}\n",
                         ctx->rank, t, cpus);
        hl_append(ctx, line, (size_t)n);
    }
}

/* the "loop_share" records: per site (numbered in order of first use) and thread */
static void loop_shares(hl_ctx *ctx) {
    char line[200];
    int threads = atomic_load(&loop_threads);
    for (int i = 0; i < HL_LOOP_SITES && atomic_load(&loop_site[i]); i++)
        for (int t = 0; t < threads && t < HL_LOOP_THREADS; t++) {
            int n = snprintf(line, sizeof line,
                             "{\"rank\":%d,\"record\":\"loop_share\",\"site\":%d,\"tid\":%ld,"
                             "\"units\":%ld}\n",
                             ctx->rank, i, atomic_load(&loop_tid[t]), atomic_load(&loop_units[i][t]));
            hl_append(ctx, line, (size_t)n);
        }
}

#include "hl_write_count.h" /* who changed the memory in parallel regions (counted build) */

/* A whole program's use of the machine, for the records at MPI_Finalize: one "thread_cpu" line
 * per OS thread of the process (its id, CPU time in ns from /proc/self/task/<tid>/schedstat,
 * and for MPI's main thread the time since MPI started: what a team's threads did is compared,
 * lab 10) and one "memory" line (the peak resident memory in KiB; its value when MPI
 * started and when the tracer loaded, before main; what MPI_Init_thread made resident). Written
 * by the tracer: the program can neither open these files nor the trace. */
static void machine_use(hl_ctx *ctx) {
    char line[256];
    long main_tid = (long)syscall(SYS_gettid);
    DIR *tasks = opendir("/proc/self/task");
    for (struct dirent *e; tasks && (e = readdir(tasks));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[96];
        long ns = -1, tid = atol(e->d_name);
        snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", tid);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%ld", &ns) != 1) ns = -1;
            fclose(f);
        }
        int n = snprintf(line, sizeof line,
                         "{\"rank\":%d,\"record\":\"thread_cpu\",\"tid\":%ld,\"main\":%d,"
                         "\"cpu_ns\":%ld}\n",
                         ctx->rank, tid, tid == main_tid,
                         tid == main_tid && ns >= 0 ? ns - F.init_cpu_ns : ns);
        hl_append(ctx, line, (size_t)n);
    }
    if (tasks) closedir(tasks);
    struct rusage use;
    getrusage(RUSAGE_SELF, &use);
    int n = snprintf(line, sizeof line,
                     "{\"rank\":%d,\"record\":\"memory\",\"peak_kb\":%ld,\"init_kb\":%ld,"
                     "\"start_kb\":%ld,\"mpi_kb\":%ld}\n",
                     ctx->rank, use.ru_maxrss, F.init_rss_kb, F.start_rss_kb, F.mpi_rss_kb);
    hl_append(ctx, line, (size_t)n);
}

int hl_traced_MPI_Finalize(void) {
    const char *dir = getenv("HL_TRACE_DIR");
    if (dir && *dir) {
        hl_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.comm = MPI_COMM_NULL; /* the trace goes to a file: no rank waits for the others */
        unsealed(1);
        records_begin();
        unsealed(0);
        MPI_Comm_rank(MPI_COMM_WORLD, &ctx.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &ctx.size);
        char line[640], host[256] = "?";
        gethostname(host, sizeof host - 1);
        int cpu, numa;
        hl_where(&cpu, &numa);
        int n = snprintf(line, sizeof line,
                         "{\"meta\":true,\"rank\":%d,\"size\":%d,\"host\":\"%s\","
                         "\"thread_level\":\"%s\"}\n"
                         "{\"rank\":%d,\"thread\":0,\"cpu\":%d,\"numa\":%d,\"record\":\"mpi_init\","
                         "\"required\":\"%s\",\"provided\":\"%s\"}\n",
                         ctx.rank, ctx.size, host, hl_level_name(provided_level), ctx.rank, cpu,
                         numa, hl_level_name(required_level), hl_level_name(provided_level));
        hl_append(&ctx, line, (size_t)n);
        machine_use(&ctx);
        loop_shares(&ctx);
        thread_places(&ctx);
        write_shares(&ctx);
        hl_trace_emit(&ctx);
        hl_trace_frame(&ctx);
        char path[4096];
        snprintf(path, sizeof path, "%s/trace-%d.jsonl", dir, ctx.rank);
        FILE *f = fopen(path, "w");
        if (f) {
            fwrite(ctx.out, 1, ctx.len, f);
            fclose(f);
        }
        (free)(ctx.out);
    }
    return MPI_Finalize();
}
