/* pingpong: point-to-point latency and bandwidth between ranks 0 and 1, measured the OSU way.
 *
 * mode=sweep      OSU osu_latency: for each size (min_bytes, doubling, up to max_bytes) rank 0
 *                 sends, rank 1 receives and sends as many bytes back, each rank from a send
 *                 buffer of its own into a receive buffer of its own, as osu_latency does.
 *                 `skip` warm-up round trips are discarded, then `iterations` are timed (the
 *                 pair leaves a barrier, rank 0's clock); sizes above large_bytes use
 *                 iterations_large/skip_large (OSU: fewer for large messages). One record per
 *                 size and sample: seconds = half the round trip, bandwidth_Bps = bytes/seconds.
 *                 echo=1: rank 1 sends back the buffer it has just received instead, so the
 *                 payload is checked after travelling both ways; that buffer's lines are dirty
 *                 in rank 1's cache, which makes large round trips slower than osu_latency's
 *                 (1.24x at 1 MiB before issue 20; benchmarks/p2p_osu.py measures both).
 * mode=sendmodes  A receiver that arrives late: rank 1 sleeps late_us before posting its receive;
 *                 rank 0 sends with MPI_Send, MPI_Ssend, MPI_Bsend (attached buffer) or
 *                 MPI_Isend + MPI_Wait (the receiver then uses MPI_Irecv + MPI_Wait). The sender
 *                 records how long the send call blocked (call_seconds), how long MPI_Wait took
 *                 (wait_seconds, isend only) and the total until its send completed; the receiver
 *                 records when it posted and how long its receive took.
 * mode=aggregate  k messages of V/k bytes against one message of V bytes, as a ping-pong (the
 *                 same messages come back): the Hockney model predicts k*alpha + V/beta.
 * mode=progress   A busy sender (the mechanism behind Smith et al. 2004, Table 4): rank 1 posts MPI_Irecv of
 *                 max_bytes at once and waits; rank 0 starts the send (MPI_Isend, or MPI_Bsend
 *                 with an attached buffer), then computes for compute_us without MPI calls
 *                 (poll_us=0) or calling MPI_Test (isend) / MPI_Iprobe (bsend) every poll_us,
 *                 then waits. One record per case and sample and role: the receiver's wait
 *                 (recv_wait_seconds), the sender's call, compute and wait times; async_progress
 *                 says whether MPICH_ASYNC_PROGRESS=1 was set (that needs MPI_THREAD_MULTIPLE).
 *
 * Ranks 2 and above take no part and wait in the final barrier. Every message carries a byte
 * pattern that depends on its size and sample (both ranks fill their send buffers with it); the
 * receivers check it (rank 1 on the way out, rank 0 on the way back), and a wrong byte fails the
 * run on every rank.
 */
#include "hybridlab.h"

const char *const hl_kernel_description =
    "OSU-style ping-pong between ranks 0 and 1: half round-trip time and bandwidth over a size "
    "sweep; send modes against a late receiver; k messages of V/k against one of V; a busy "
    "sender with and without polling (progress)";

const hl_param hl_kernel_params[] = {
    {"mode", "sweep", "sweep, sendmodes, aggregate or progress"},
    {"min_bytes", "1", "smallest message (the sweep doubles from here)"},
    {"max_bytes", "4194304", "largest message"},
    {"iterations", "1000", "timed round trips per sample, messages up to large_bytes"},
    {"skip", "100", "warm-up round trips per sample (discarded), up to large_bytes"},
    {"iterations_large", "100", "timed round trips per sample above large_bytes"},
    {"skip_large", "10", "warm-up round trips per sample above large_bytes"},
    {"large_bytes", "8192", "messages above this use iterations_large/skip_large (OSU: 8192)"},
    {"samples", "5", "samples per size (and per send mode)"},
    {"send_modes", "send,ssend,bsend,isend", "sendmodes: comma list of send, ssend, bsend, isend"},
    {"late_us", "20000", "sendmodes: the receiver sleeps this long before posting, microseconds"},
    {"compute_us", "20000", "progress: the sender computes this long after starting the send"},
    {"poll_us", "0,100", "progress: comma list of polling intervals in microseconds (0: no MPI "
                         "call while computing)"},
    {"k", "8", "aggregate: the volume V is sent as k messages of V/k bytes (and as one of V)"},
    {"echo", "0", "sweep/aggregate: 1: rank 1 sends back the buffer it received (0: from its own "
                  "send buffer, as osu_latency)"},
    HL_END_PARAMS,
};

#define MAX_BYTES_LIMIT (1L << 30)
#define TAG 17

enum { M_SEND, M_SSEND, M_BSEND, M_ISEND, M_COUNT };
static const char *const mode_names[M_COUNT] = {"send", "ssend", "bsend", "isend"};

static unsigned char pattern(long i, long seed) {
    return (unsigned char)((i * 131 + seed * 7 + 11) & 0xff);
}

static void fill(unsigned char *buf, long n, long seed) {
    for (long i = 0; i < n; i++) buf[i] = pattern(i, seed);
}

/* Number of wrong bytes. */
static long verify(const unsigned char *buf, long n, long seed) {
    long wrong = 0;
    for (long i = 0; i < n; i++) wrong += buf[i] != pattern(i, seed);
    return wrong;
}

/* Parse the comma list of send modes into `use`; 0 or hl_fail. */
static int parse_modes(hl_ctx *ctx, int use[M_COUNT]) {
    int named[64];
    int count = hl_param_names(ctx, "send_modes", "send mode", mode_names, M_COUNT, named, 64);
    if (count < 0) return -1;
    for (int m = 0; m < M_COUNT; m++) use[m] = 0;
    for (int i = 0; i < count && i < 64; i++) use[named[i]] = 1;
    return 0;
}

typedef struct {
    long min_bytes, max_bytes, iterations, skip, iterations_large, skip_large, large_bytes;
    long samples, late_us, k, compute_us, echo;
} settings;

static void counts_for(const settings *s, long bytes, long *iters, long *skip) {
    int large = bytes > s->large_bytes;
    *iters = large ? s->iterations_large : s->iterations;
    *skip = large ? s->skip_large : s->skip;
}

/* One ping-pong measurement: `skip` untimed then `iters` timed round trips, each direction a
 * train of `nmsg` messages that together carry `bytes`. Rank 1 answers from its own sbuf, or
 * with `echo` from the rbuf it has just received. Returns the half round trip (rank 0) and adds
 * wrong bytes of the last round trip to *wrong. */
static double pingpong(MPI_Comm comm, int rank, unsigned char *sbuf, unsigned char *rbuf,
                       long bytes, long nmsg, long iters, long skip, int echo, long seed,
                       long *wrong) {
    long base = bytes / nmsg, extra = bytes % nmsg;
    unsigned char *answer = echo ? rbuf : sbuf; /* what rank 1 sends back */
    double t0 = 0.0;
    for (long it = 0; it < skip + iters; it++) {
        if (it == skip) t0 = hl_start_together(comm);
        long off = 0;
        if (rank == 0) {
            for (long m = 0; m < nmsg; m++) {
                int n = (int)(base + (m < extra));
                MPI_Send(sbuf + off, n, MPI_BYTE, 1, TAG, comm);
                off += n;
            }
            off = 0;
            for (long m = 0; m < nmsg; m++) {
                int n = (int)(base + (m < extra));
                MPI_Recv(rbuf + off, n, MPI_BYTE, 1, TAG, comm, MPI_STATUS_IGNORE);
                off += n;
            }
        } else {
            for (long m = 0; m < nmsg; m++) {
                int n = (int)(base + (m < extra));
                MPI_Recv(rbuf + off, n, MPI_BYTE, 0, TAG, comm, MPI_STATUS_IGNORE);
                off += n;
            }
            off = 0;
            for (long m = 0; m < nmsg; m++) {
                int n = (int)(base + (m < extra));
                MPI_Send(answer + off, n, MPI_BYTE, 0, TAG, comm);
                off += n;
            }
        }
    }
    double half = (hl_now() - t0) / (2.0 * (double)iters);
    *wrong += verify(rbuf, bytes, seed);
    for (long i = 0; i < bytes; i++) rbuf[i] = 0; /* the next check must see fresh data */
    return half;
}

static long sweep(hl_ctx *ctx, const settings *s, int aggregate, unsigned char *sbuf,
                  unsigned char *rbuf) {
    MPI_Comm comm = ctx->comm;
    int rank = ctx->rank;
    long wrong = 0;
    for (long bytes = s->min_bytes; bytes <= s->max_bytes; bytes *= 2) {
        long iters, skip;
        counts_for(s, bytes, &iters, &skip);
        for (int variant = 0; variant < (aggregate ? 2 : 1); variant++) {
            long nmsg = aggregate && variant == 1 ? s->k : 1;
            for (long sample = 0; sample < s->samples; sample++) {
                long seed = bytes + 1000 * sample + 7 * nmsg;
                fill(sbuf, bytes, seed);
                double half = pingpong(comm, rank, sbuf, rbuf, bytes, nmsg, iters, skip,
                                       (int)s->echo, seed, &wrong);
                if (rank != 0) continue;
                if (aggregate)
                    hl_emit(ctx,
                            "\"mode\":\"aggregate\",\"variant\":\"%s\",\"bytes\":%ld,"
                            "\"messages\":%ld,\"message_bytes\":%ld,\"k\":%ld,\"sample\":%ld,"
                            "\"iterations\":%ld,\"skip\":%ld,\"echo\":%ld,\"seconds\":%.9e,"
                            "\"bandwidth_Bps\":%.6e",
                            nmsg == 1 ? "one" : "split", bytes, nmsg, bytes / nmsg, s->k, sample,
                            iters, skip, s->echo, half, (double)bytes / half);
                else
                    hl_emit(ctx,
                            "\"mode\":\"sweep\",\"bytes\":%ld,\"sample\":%ld,\"iterations\":%ld,"
                            "\"skip\":%ld,\"echo\":%ld,\"seconds\":%.9e,\"bandwidth_Bps\":%.6e",
                            bytes, sample, iters, skip, s->echo, half, (double)bytes / half);
            }
        }
        if (bytes > s->max_bytes / 2) break; /* no overflow past max_bytes */
    }
    return wrong;
}

/* Attach a buffer for MPI_Bsend big enough for two messages of `bytes` (NULL when !want). */
static void *attach_bsend_buffer(int want, long bytes) {
    if (!want) return NULL;
    long size = 2 * (bytes + MPI_BSEND_OVERHEAD); /* room for one spare message */
    int attach_size = size > 2147483647L ? 2147483647 : (int)size;
    void *buffer = malloc((size_t)attach_size);
    MPI_Buffer_attach(buffer, attach_size);
    return buffer;
}

/* Detach and free what attach_bsend_buffer attached (waits for buffered sends to leave). */
static void detach_bsend_buffer(void *buffer) {
    if (!buffer) return;
    void *back;
    int back_size;
    MPI_Buffer_detach(&back, &back_size);
    free(buffer);
}

static long sendmodes(hl_ctx *ctx, const settings *s, const int use[M_COUNT],
                      unsigned char *sbuf, unsigned char *rbuf) {
    MPI_Comm comm = ctx->comm;
    int rank = ctx->rank;
    long wrong = 0;
    void *attached = attach_bsend_buffer(rank == 0 && use[M_BSEND], s->max_bytes);
    double late = 1e-6 * (double)s->late_us;
    for (long bytes = s->min_bytes; bytes <= s->max_bytes; bytes *= 2) {
        for (int m = 0; m < M_COUNT; m++) {
            if (!use[m]) continue;
            for (long sample = 0; sample < s->samples; sample++) {
                long seed = bytes + 1000 * sample + 13 * m;
                if (rank == 0) fill(sbuf, bytes, seed);
                double t0 = hl_start_together(comm);
                int n = (int)bytes;
                if (rank == 0) {
                    MPI_Request req = MPI_REQUEST_NULL;
                    double wait = 0.0;
                    switch (m) {
                    case M_SEND: MPI_Send(sbuf, n, MPI_BYTE, 1, TAG, comm); break;
                    case M_SSEND: MPI_Ssend(sbuf, n, MPI_BYTE, 1, TAG, comm); break;
                    case M_BSEND: MPI_Bsend(sbuf, n, MPI_BYTE, 1, TAG, comm); break;
                    default: MPI_Isend(sbuf, n, MPI_BYTE, 1, TAG, comm, &req); break;
                    }
                    double t1 = hl_now();
                    if (m == M_ISEND) {
                        MPI_Wait(&req, MPI_STATUS_IGNORE);
                        wait = hl_now() - t1;
                    }
                    double total = hl_now() - t0;
                    hl_emit(ctx,
                            "\"mode\":\"sendmodes\",\"send_mode\":\"%s\",\"role\":\"sender\","
                            "\"bytes\":%ld,\"sample\":%ld,\"late_seconds\":%.6e,"
                            "\"call_seconds\":%.9e,\"wait_seconds\":%.9e,\"seconds\":%.9e",
                            mode_names[m], bytes, sample, late, t1 - t0, wait, total);
                } else if (rank == 1) {
                    hl_sleep_us(s->late_us);
                    double posted = hl_now();
                    if (m == M_ISEND) {
                        MPI_Request req;
                        MPI_Irecv(rbuf, n, MPI_BYTE, 0, TAG, comm, &req);
                        MPI_Wait(&req, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Recv(rbuf, n, MPI_BYTE, 0, TAG, comm, MPI_STATUS_IGNORE);
                    }
                    double done = hl_now();
                    wrong += verify(rbuf, bytes, seed);
                    for (long i = 0; i < bytes; i++) rbuf[i] = 0;
                    hl_emit(ctx,
                            "\"mode\":\"sendmodes\",\"send_mode\":\"%s\",\"role\":\"receiver\","
                            "\"bytes\":%ld,\"sample\":%ld,\"late_seconds\":%.6e,"
                            "\"posted_seconds\":%.9e,\"call_seconds\":%.9e,\"wait_seconds\":0,"
                            "\"seconds\":%.9e",
                            mode_names[m], bytes, sample, late, posted - t0, done - posted,
                            done - t0);
                }
                MPI_Barrier(comm); /* the sender's buffered message has been received */
            }
        }
        if (bytes > s->max_bytes / 2) break;
    }
    detach_bsend_buffer(attached);
    return wrong;
}

/* Busy wall-clock computation for `seconds`; with poll > 0, call poke(state) every poll seconds. */
static void compute_for(double seconds, double poll, MPI_Request *req, MPI_Comm comm) {
    double start = hl_now(), end = start + seconds, next = start + poll;
    volatile double x = 1.0;
    for (;;) {
        double now = hl_now();
        if (now >= end) break;
        for (int i = 0; i < 200; i++) x = x * 1.0000001 + 1e-9; /* no MPI call here */
        if (poll > 0 && now >= next) {
            int flag = 0;
            if (req && *req != MPI_REQUEST_NULL) {
                MPI_Test(req, &flag, MPI_STATUS_IGNORE);
            } else {
                MPI_Iprobe(MPI_ANY_SOURCE, TAG + 1, comm, &flag, MPI_STATUS_IGNORE);
            }
            next = now + poll;
        }
    }
}

#define MAX_POLLS 8

static long progress(hl_ctx *ctx, const settings *s, unsigned char *sbuf, unsigned char *rbuf) {
    MPI_Comm comm = ctx->comm;
    int rank = ctx->rank;
    long wrong = 0;
    double polls[MAX_POLLS];
    int npolls = hl_param_numbers(ctx, "poll_us", polls, MAX_POLLS); /* checked by the caller */
    if (npolls > MAX_POLLS) npolls = MAX_POLLS;
    const char *env = getenv("MPICH_ASYNC_PROGRESS");
    int async = env && strcmp(env, "1") == 0;
    long bytes = s->max_bytes;
    void *attached = attach_bsend_buffer(rank == 0, bytes);
    double compute = 1e-6 * (double)s->compute_us;
    const char *sends[2] = {"isend", "bsend"};
    for (int m = 0; m < 2; m++) {
        for (int p = 0; p < npolls; p++) {
            double poll = 1e-6 * polls[p];
            for (long sample = 0; sample < s->samples; sample++) {
                long seed = bytes + 1000 * sample + 31 * m + 7 * p;
                if (rank == 0) fill(sbuf, bytes, seed);
                double t0 = hl_start_together(comm);
                int n = (int)bytes;
                if (rank == 0) {
                    MPI_Request req = MPI_REQUEST_NULL;
                    if (m == 0) MPI_Isend(sbuf, n, MPI_BYTE, 1, TAG, comm, &req);
                    else MPI_Bsend(sbuf, n, MPI_BYTE, 1, TAG, comm);
                    double t1 = hl_now();
                    compute_for(compute, poll, m == 0 ? &req : NULL, comm);
                    double t2 = hl_now();
                    MPI_Wait(&req, MPI_STATUS_IGNORE);
                    double t3 = hl_now();
                    hl_emit(ctx,
                            "\"mode\":\"progress\",\"send\":\"%s\",\"poll_us\":%g,"
                            "\"async_progress\":%d,\"role\":\"sender\",\"bytes\":%ld,"
                            "\"sample\":%ld,\"call_seconds\":%.9e,\"compute_seconds\":%.9e,"
                            "\"wait_seconds\":%.9e,\"seconds\":%.9e",
                            sends[m], polls[p], async, bytes, sample, t1 - t0, t2 - t1, t3 - t2,
                            t3 - t0);
                } else if (rank == 1) {
                    MPI_Request req;
                    MPI_Irecv(rbuf, n, MPI_BYTE, 0, TAG, comm, &req);
                    double posted = hl_now();
                    MPI_Wait(&req, MPI_STATUS_IGNORE);
                    double done = hl_now();
                    wrong += verify(rbuf, bytes, seed);
                    memset(rbuf, 0, (size_t)bytes);
                    hl_emit(ctx,
                            "\"mode\":\"progress\",\"send\":\"%s\",\"poll_us\":%g,"
                            "\"async_progress\":%d,\"role\":\"receiver\",\"bytes\":%ld,"
                            "\"sample\":%ld,\"compute_seconds\":%.9e,"
                            "\"recv_wait_seconds\":%.9e,\"seconds\":%.9e",
                            sends[m], polls[p], async, bytes, sample, compute, done - posted,
                            done - t0);
                }
                MPI_Barrier(comm);
            }
        }
    }
    detach_bsend_buffer(attached);
    return wrong;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    settings s;
    const char *mode = hl_param_str(ctx, "mode");
    s.min_bytes = hl_param_long(ctx, "min_bytes", 1, &ok);
    if (ok) s.max_bytes = hl_param_long(ctx, "max_bytes", 1, &ok);
    if (ok) s.iterations = hl_param_long(ctx, "iterations", 1, &ok);
    if (ok) s.skip = hl_param_long(ctx, "skip", 0, &ok);
    if (ok) s.iterations_large = hl_param_long(ctx, "iterations_large", 1, &ok);
    if (ok) s.skip_large = hl_param_long(ctx, "skip_large", 0, &ok);
    if (ok) s.large_bytes = hl_param_long(ctx, "large_bytes", 0, &ok);
    if (ok) s.samples = hl_param_long(ctx, "samples", 1, &ok);
    if (ok) s.late_us = hl_param_long(ctx, "late_us", 0, &ok);
    if (ok) s.k = hl_param_long(ctx, "k", 1, &ok);
    if (ok) s.compute_us = hl_param_long(ctx, "compute_us", 0, &ok);
    if (ok) s.echo = hl_param_long(ctx, "echo", 0, &ok);
    if (!ok) return -1;
    if (s.echo > 1) return hl_fail(ctx, "parameter echo=%ld must be 0 or 1", s.echo);
    int which;
    if (strcmp(mode, "sweep") == 0) which = 0;
    else if (strcmp(mode, "sendmodes") == 0) which = 1;
    else if (strcmp(mode, "aggregate") == 0) which = 2;
    else if (strcmp(mode, "progress") == 0) which = 3;
    else return hl_fail(ctx, "unknown mode '%s' (valid: sweep, sendmodes, aggregate, progress)",
                        mode);
    if (s.compute_us > 10000000)
        return hl_fail(ctx, "parameter compute_us=%ld must be at most 1e7", s.compute_us);
    if (s.max_bytes > MAX_BYTES_LIMIT)
        return hl_fail(ctx, "parameter max_bytes=%ld must be at most %ld", s.max_bytes,
                       MAX_BYTES_LIMIT);
    if (s.min_bytes > s.max_bytes)
        return hl_fail(ctx, "min_bytes=%ld is above max_bytes=%ld", s.min_bytes, s.max_bytes);
    if (s.late_us > 10000000) return hl_fail(ctx, "parameter late_us=%ld must be at most 1e7",
                                             s.late_us);
    if (s.k > 1000000) return hl_fail(ctx, "parameter k=%ld must be at most 1000000", s.k);
    int use[M_COUNT];
    if (which == 1 && parse_modes(ctx, use) != 0) return -1;
    double polls_check[MAX_POLLS];
    if (which == 3 && hl_param_numbers(ctx, "poll_us", polls_check, MAX_POLLS) <= 0) return -1;
    if (ctx->size < 2)
        return hl_fail(ctx, "pingpong needs at least 2 ranks (got %d): run with ranks=2",
                       ctx->size);

    unsigned char *sbuf = NULL, *rbuf = NULL;
    int have = 1, all = 1;
    if (ctx->rank < 2) {
        sbuf = hl_alloc_pages((size_t)s.max_bytes);
        rbuf = hl_alloc_pages((size_t)s.max_bytes);
        have = sbuf && rbuf;
        if (have) memset(rbuf, 0, (size_t)s.max_bytes);
    }
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, comm);
    long wrong = 0, wrong_all = 0;
    if (all && ctx->rank < 2) {
        MPI_Comm pair = MPI_COMM_NULL;
        MPI_Comm_split(comm, 0, ctx->rank, &pair);
        /* the pair's communicator keeps ranks 0 and 1 and leaves the idle ranks out */
        MPI_Comm saved = ctx->comm;
        ctx->comm = pair;
        if (which == 1) wrong = sendmodes(ctx, &s, use, sbuf, rbuf);
        else if (which == 3) wrong = progress(ctx, &s, sbuf, rbuf);
        else wrong = sweep(ctx, &s, which == 2, sbuf, rbuf);
        ctx->comm = saved;
        MPI_Comm_free(&pair);
    } else if (all) {
        MPI_Comm pair = MPI_COMM_NULL;
        MPI_Comm_split(comm, MPI_UNDEFINED, ctx->rank, &pair);
    }
    free(sbuf);
    free(rbuf);
    MPI_Allreduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, comm);
    MPI_Barrier(comm); /* ranks beyond 2 wait here */
    if (!all) return hl_fail(ctx, "could not allocate two buffers of %ld bytes", s.max_bytes);
    if (wrong_all)
        return hl_fail(ctx, "payload check failed: %ld bytes arrived wrong", wrong_all);
    return 0;
}
