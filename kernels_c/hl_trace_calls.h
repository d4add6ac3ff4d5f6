/* hl_trace_calls.h: the MPI functions the kit traces, one line each (an X-list).
 *
 * Not included by kernels: kernels_c/hl_trace.c includes it to define one pair of entry points per
 * function (hl_traced_MPI_Send for a student's unit, hl_kit_MPI_Send for the kit's own units),
 * and hl_mpi_trace.h to declare them. The includer defines
 *     HL_TRACED(name, params, args)                      a call recorded as it is
 *     HL_TRACED_COMM(name, params, args, comm)           ... and its communicator's members
 *     HL_TRACED_ICOMM(name, params, args, comm, request) ... and the request it returns (a
 *                                                        non-blocking collective)
 *     HL_TRACED_SENT(name, params, args, comm, count, type)
 *                                                        a collective that moves data: its
 *                                                        communicator and the `count` elements
 *                                                        of `type` this rank sends each member
 *                                                        it sends to ("count", "bytes"; the
 *                                                        most of a v-variant's; 0 where it
 *                                                        sends nothing)
 *     HL_TRACED_ISENT(name, params, args, comm, count, type, request)
 *                                                        ... non-blocking, and its request
 *     HL_TRACED_REDUCE(name, params, args, comm, count, type, request)
 *                                                        a reduction: its communicator, the
 *                                                        count and bytes it reduces and its
 *                                                        request's handle (-1: blocking)
 *     HL_TRACED_WAIT(name, params, args, flag, request)  a completion of one request: whether it
 *                                                        completed (flag) and the request given
 *     HL_TRACED_WAITALL(name, params, args, flag, count, array)
 *                                                        ... of `count` requests: the requests
 *     HL_TRACED_SOME(name, params, args, flag, count, array, kept, indices)
 *                                                        ... of some of them: the `kept`
 *                                                        completed, at positions `indices`
 *     HL_TRACED_P2P(name, params, args, comm, tag, count, type, peer)
 *                                                        ... and its communicator, tag, count,
 *                                                        peer and bytes
 *       (a send's buffer in `args` is HL_SENT(buffer, count, type, dest, comm): hl_trace.c
 *       sends a nudged copy of it instead in a run with HL_HALO_NUDGE, lab 10; a receive's is
 *       HL_RECEIVED(buffer): its address is kept in the record, lab 01, as a send's, "sent";
 *       a blocking receive's or a completion's status is HL_STATUS(status) (an array of n,
 *       HL_STATUSES(statuses, n)): MPI writes the tracer's own, given back at the end, so the
 *       tracer reads what each receive got, lab 01; the requests an MPI_Start or MPI_Startall
 *       is given are HL_STARTING(n, requests): a persistent receive is filed under the thread
 *       that started it;
 *       a non-blocking send's or receive's request is HL_POSTING(request): its handle is kept,
 *       "posted", lab 12; a non-blocking
 *       collective's send buffer is HL_POSTED(buffer, count, type), its count the elements MPI
 *       reads from it (a reduction's HL_POSTED_IN(send, receive, count, type): with MPI_IN_PLACE
 *       the receive buffer, watched outside MPI calls): hl_trace.c hashes it at the posting and again at the completion of its
 *       request, "send_changed" in the completion's record, lab 13)
 *     HL_TRACED_SENDRECV(name, params, args, comm, tag, count, type, peer, rcount, rtype, rpeer)
 *                                                        ... and its receive's peer and size too
 *     HL_TRACED_P2P_AS(entry, "MPI_name", real, params, args, comm, tag, count, type, peer)
 *                                                        entry hl_*_<entry> recorded as MPI_name
 *                                                        and calling `real`
 *     HL_TRACED_PSETUP(name, params, args, comm, tag, count, type, peer, partitions, request,
 *                      buffer)
 *                                                        a persistent (partitioned) set-up
 *     HL_TRACED_PART(name, params, args, low, high, request, flag)
 *                                                        partitions low..high of a request it
 *                                                        names (and whether they arrived: flag)
 *     HL_TRACED_PROBE(name, params, args, comm, message)  a matched probe: the message it matched
 *                                                        (its source, tag, bytes), kept under
 *                                                        the message's handle (args call the
 *                                                        tracer's probe_matched: flag NULL for
 *                                                        MPI_Mprobe)
 *     HL_TRACED_MRECV(name, params, args, count, type, message)
 *                                                        the receive of a matched message,
 *                                                        recorded from its probe's source, on
 *                                                        its communicator, with its tag
 *     HL_TRACED_MODE(name, params, args, mode)           a window's synchronisation and the
 *                                                        assert it was given (mode)
 *     HL_TRACED_SHARED(name, params, args, win, rank, size, base)
 *                                                        a shared window's query: the rank it
 *                                                        names ("peer", an MPI_COMM_WORLD
 *                                                        rank) and the segment MPI returned
 *                                                        ("buffer": its base, "bytes": its size)
 *     HL_QUERY(type, name, params, args)                 passed through, not recorded
 */
/* point to point */
HL_TRACED_P2P(Send, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (HL_SENT(b, n, t, d, c), n, t, d, g, c),
              c, g, n, t, d)
HL_TRACED_P2P(Ssend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (HL_SENT(b, n, t, d, c), n, t, d, g, c),
              c, g, n, t, d)
HL_TRACED_P2P(Bsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (HL_SENT(b, n, t, d, c), n, t, d, g, c),
              c, g, n, t, d)
HL_TRACED_P2P(Rsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (HL_SENT(b, n, t, d, c), n, t, d, g, c),
              c, g, n, t, d)
HL_TRACED_P2P(Recv, (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Status *st),
              (HL_RECEIVED(b), n, t, s, g, c, HL_STATUS(st)), c, g, n, t, s)
HL_TRACED_P2P(Isend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
              (HL_SENT(b, n, t, d, c), n, t, d, g, c, HL_POSTING(r)), c, g, n, t, d)
HL_TRACED_P2P(Issend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
              (HL_SENT(b, n, t, d, c), n, t, d, g, c, HL_POSTING(r)), c, g, n, t, d)
HL_TRACED_P2P(Ibsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
              (HL_SENT(b, n, t, d, c), n, t, d, g, c, HL_POSTING(r)), c, g, n, t, d)
HL_TRACED_P2P(Irsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
              (HL_SENT(b, n, t, d, c), n, t, d, g, c, HL_POSTING(r)), c, g, n, t, d)
HL_TRACED_P2P(Irecv, (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request *r),
              (HL_RECEIVED(b), n, t, s, g, c, HL_POSTING(r)), c, g, n, t, s)
HL_TRACED_SENDRECV(Sendrecv,
              (const void *sb, int sn, MPI_Datatype st, int d, int sg, void *rb, int rn,
               MPI_Datatype rt, int s, int rg, MPI_Comm c, MPI_Status *status),
              (HL_SENT(sb, sn, st, d, c), sn, st, d, sg, HL_RECEIVED(rb), rn, rt, s, rg, c, HL_STATUS(status)), c, sg, sn, st, d, rn, rt, s)
HL_TRACED_SENDRECV(Sendrecv_replace,
              (void *b, int n, MPI_Datatype t, int d, int sg, int s, int rg, MPI_Comm c,
               MPI_Status *status),
              (HL_RECEIVED(b), n, t, d, sg, s, rg, c, HL_STATUS(status)), c, sg, n, t, d, n, t, s)
HL_TRACED_WAIT(Wait, (MPI_Request *r, MPI_Status *st), (r, HL_STATUS(st)), 1, *r)
HL_TRACED_WAITALL(Waitall, (int n, MPI_Request r[], MPI_Status *st), (n, r, HL_STATUSES(st, n)), 1, n, r)
HL_TRACED_SOME(Waitany, (int n, MPI_Request r[], int *i, MPI_Status *st), (n, r, i, HL_STATUS(st)), *i != MPI_UNDEFINED, n, r, *i != MPI_UNDEFINED, i)
HL_TRACED_SOME(Waitsome, (int n, MPI_Request r[], int *k, int i[], MPI_Status *st), (n, r, k, i, HL_STATUSES(st, n)), *k != MPI_UNDEFINED && *k > 0, n, r, *k == MPI_UNDEFINED ? 0 : *k, i)
HL_TRACED_WAIT(Test, (MPI_Request *r, int *f, MPI_Status *st), (r, f, HL_STATUS(st)), *f, *r)
HL_TRACED_WAITALL(Testall, (int n, MPI_Request r[], int *f, MPI_Status *st), (n, r, f, HL_STATUSES(st, n)), *f, n, r)
HL_TRACED_SOME(Testany, (int n, MPI_Request r[], int *i, int *f, MPI_Status *st), (n, r, i, f, HL_STATUS(st)), *f && *i != MPI_UNDEFINED, n, r, *f && *i != MPI_UNDEFINED, i)
HL_TRACED_SOME(Testsome, (int n, MPI_Request r[], int *k, int i[], MPI_Status *st), (n, r, k, i, HL_STATUSES(st, n)), *k != MPI_UNDEFINED && *k > 0, n, r, *k == MPI_UNDEFINED ? 0 : *k, i)
HL_TRACED(Probe, (int s, int g, MPI_Comm c, MPI_Status *st), (s, g, c, st))
HL_TRACED(Iprobe, (int s, int g, MPI_Comm c, int *f, MPI_Status *st), (s, g, c, f, st))
HL_TRACED(Get_count, (const MPI_Status *st, MPI_Datatype t, int *n), (st, t, n))
/* matched probes and the receives of the messages they matched (MPI 3.0, section 3.8.2): the
 * receive is recorded from the source MPI matched, not the MPI_ANY_SOURCE a probe may ask (lab 04
 * (a): a row received by its source, which the matched probe names) */
HL_TRACED_PROBE(Mprobe, (int s, int g, MPI_Comm c, MPI_Message *m, MPI_Status *st),
                (s, g, c, NULL, m, st), c, m)
HL_TRACED_PROBE(Improbe, (int s, int g, MPI_Comm c, int *f, MPI_Message *m, MPI_Status *st),
                (s, g, c, f, m, st), c, m)
HL_TRACED_MRECV(Mrecv, (void *b, int n, MPI_Datatype t, MPI_Message *m, MPI_Status *st),
                (HL_RECEIVED(b), n, t, m, HL_STATUS(st)), n, t, m)
HL_TRACED_MRECV(Imrecv, (void *b, int n, MPI_Datatype t, MPI_Message *m, MPI_Request *r),
                (HL_RECEIVED(b), n, t, m, HL_POSTING(r)), n, t, m)
/* the request freed, as it was given ("request"; done 0): lab 04 (a) ties each free to the
 * posting or set-up that made it (hybridlab.halo.exercise.freed_in_flight) */
HL_TRACED_WAIT(Request_free, (MPI_Request *r), (r), 0, *r)

/* -DHL_SYNCHRONOUS_SENDS: MPI_Send and MPI_Isend, still recorded as themselves, are made an
 * MPI_Ssend and an MPI_Issend (a request that completes only once the receive matched), so that an
 * ordering that is only safe while MPI buffers the message deadlocks for certain (what lab 04's
 * exercise does untraced with `#define MPI_Send MPI_Ssend`, which cannot redefine the name here) */
HL_TRACED_P2P_AS(MPI_Send_synchronous, "MPI_Send", MPI_Ssend,
                 (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c),
                 (HL_SENT(b, n, t, d, c), n, t, d, g, c), c, g, n, t, d)
HL_TRACED_P2P_AS(MPI_Isend_synchronous, "MPI_Isend", MPI_Issend,
                 (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
                 (HL_SENT(b, n, t, d, c), n, t, d, g, c, HL_POSTING(r)), c, g, n, t, d)

/* collectives */
HL_TRACED_COMM(Barrier, (MPI_Comm c), (c), c)
HL_TRACED_ICOMM(Ibarrier, (MPI_Comm c, MPI_Request *r), (c, r), c, *r)
HL_TRACED_SENT(Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c), c,
          is_root(c, root) ? n : 0, t)
HL_TRACED_ISENT(Ibcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *r),
          (is_root(c, root) ? HL_POSTED(b, n, t) : b, n, t, root, c, r), c,
          is_root(c, root) ? n : 0, t, *r)
HL_TRACED_REDUCE(Reduce,
          (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c),
          (HL_CONTRIBUTED(sb, rb, n, t, op, root, c), rb, n, t, op, root, c), c, n, t, -1)
HL_TRACED_REDUCE(Allreduce, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (HL_CONTRIBUTED(sb, rb, n, t, op, -1, c), rb, n, t, op, c), c, n, t, -1)
HL_TRACED_REDUCE(Iallreduce,
          (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c,
           MPI_Request *r),
          (HL_CONTRIBUTED(HL_POSTED_IN(sb, rb, n, t), rb, n, t, op, -1, c), rb, n, t, op, c, r), c, n, t,
          (int)MPI_Request_c2f(*r))
HL_TRACED_REDUCE(Ireduce,
          (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
           MPI_Request *r),
          (HL_CONTRIBUTED(HL_POSTED_IN(sb, rb, n, t), rb, n, t, op, root, c), rb, n, t, op, root, c, r),
          c, n, t, (int)MPI_Request_c2f(*r))
HL_TRACED_SENT(Scan, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c), c, n, t)
HL_TRACED_SENT(Exscan, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c), c, n, t)
HL_TRACED_SENT(Reduce_scatter_block,
          (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c), c, n, t)
HL_TRACED_SENT(Alltoall,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rt, c), c, sn, st)
HL_TRACED_ISENT(Ialltoall,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c,
           MPI_Request *r),
          (HL_POSTED(sb, (long)sn * all_peers(c), st), sn, st, rb, rn, rt, c, r), c, sn, st, *r)
HL_TRACED_SENT(Alltoallv,
          (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb,
           const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c),
          (sb, sn, sd, st, rb, rn, rd, rt, c), c, most(sn, all_peers(c)), st)
HL_TRACED_SENT(Allgather,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rt, c), c, sn, st)
HL_TRACED_SENT(Allgatherv,
          (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int rd[],
           MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rd, rt, c), c, sn, st)
HL_TRACED_SENT(Gather,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
           MPI_Comm c),
          (sb, sn, st, rb, rn, rt, root, c), c, sn, st)
HL_TRACED_SENT(Gatherv,
          (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int rd[],
           MPI_Datatype rt, int root, MPI_Comm c),
          (sb, sn, st, rb, rn, rd, rt, root, c), c, sn, st)
HL_TRACED_SENT(Scatter,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
           MPI_Comm c),
          (sb, sn, st, rb, rn, rt, root, c), c, is_root(c, root) ? sn : 0, st)
HL_TRACED_SENT(Scatterv,
          (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb, int rn,
           MPI_Datatype rt, int root, MPI_Comm c),
          (sb, sn, sd, st, rb, rn, rt, root, c), c,
          is_root(c, root) ? most(sn, all_peers(c)) : 0, st)

/* communicators, topologies and datatypes */
HL_TRACED(Comm_rank, (MPI_Comm c, int *r), (c, r))
HL_TRACED(Comm_size, (MPI_Comm c, int *n), (c, n))
HL_TRACED(Comm_split, (MPI_Comm c, int colour, int key, MPI_Comm *out), (c, colour, key, out))
HL_TRACED(Comm_split_type, (MPI_Comm c, int type, int key, MPI_Info info, MPI_Comm *out),
          (c, type, key, info, out))
HL_TRACED(Comm_dup, (MPI_Comm c, MPI_Comm *out), (c, out))
HL_TRACED(Comm_dup_with_info, (MPI_Comm c, MPI_Info info, MPI_Comm *out), (c, info, out))
HL_TRACED(Comm_create, (MPI_Comm c, MPI_Group g, MPI_Comm *out), (c, g, out))
HL_TRACED(Comm_create_group, (MPI_Comm c, MPI_Group g, int tag, MPI_Comm *out), (c, g, tag, out))
HL_TRACED(Comm_free, (MPI_Comm *c), (c))
HL_TRACED(Cart_create,
          (MPI_Comm c, int nd, const int dims[], const int periods[], int reorder, MPI_Comm *out),
          (c, nd, dims, periods, reorder, out))
HL_TRACED(Cart_shift, (MPI_Comm c, int dir, int disp, int *s, int *d), (c, dir, disp, s, d))
HL_TRACED(Cart_coords, (MPI_Comm c, int r, int nd, int coords[]), (c, r, nd, coords))
HL_TRACED(Type_contiguous, (int n, MPI_Datatype t, MPI_Datatype *out), (n, t, out))
HL_TRACED(Type_vector, (int n, int len, int stride, MPI_Datatype t, MPI_Datatype *out),
          (n, len, stride, t, out))
HL_TRACED(Type_create_hvector,
          (int n, int len, MPI_Aint stride, MPI_Datatype t, MPI_Datatype *out),
          (n, len, stride, t, out))
HL_TRACED(Type_indexed,
          (int n, const int lens[], const int at[], MPI_Datatype t, MPI_Datatype *out),
          (n, lens, at, t, out))
HL_TRACED(Type_create_subarray,
          (int nd, const int sizes[], const int subsizes[], const int starts[], int order,
           MPI_Datatype t, MPI_Datatype *out),
          (nd, sizes, subsizes, starts, order, t, out))
HL_TRACED(Type_create_resized, (MPI_Datatype t, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out),
          (t, lb, extent, out))
HL_TRACED(Type_commit, (MPI_Datatype *t), (t))
HL_TRACED(Type_free, (MPI_Datatype *t), (t))
HL_TRACED(Dims_create, (int n, int nd, int dims[]), (n, nd, dims))
HL_TRACED(Cart_rank, (MPI_Comm c, const int coords[], int *r), (c, coords, r))
HL_TRACED(Dist_graph_create_adjacent,
          (MPI_Comm c, int ni, const int srcs[], const int sw[], int no, const int dsts[],
           const int dw[], MPI_Info info, int reorder, MPI_Comm *out),
          (c, ni, srcs, sw, no, dsts, dw, info, reorder, out))
HL_TRACED(Comm_group, (MPI_Comm c, MPI_Group *g), (c, g))
HL_TRACED(Group_translate_ranks, (MPI_Group a, int n, const int ra[], MPI_Group b, int rb[]),
          (a, n, ra, b, rb))
HL_TRACED(Group_incl, (MPI_Group g, int n, const int ranks[], MPI_Group *out), (g, n, ranks, out))
HL_TRACED(Group_excl, (MPI_Group g, int n, const int ranks[], MPI_Group *out), (g, n, ranks, out))
HL_TRACED(Group_free, (MPI_Group *g), (g))

/* persistent and MPI-4 partitioned point to point (MPICH 4+, Open MPI 5) */
HL_TRACED_PSETUP(Send_init,
                 (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
                 (b, n, t, d, g, c, r), c, g, n, t, d, 0, *r, b)
/* a persistent synchronous send: completes, once started, only when the receive has started
 * (lab 01 (b) asks for synchronous sends: A7's right answer r2 was refused, 2026-12-07) */
HL_TRACED_PSETUP(Ssend_init,
                 (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
                 (b, n, t, d, g, c, r), c, g, n, t, d, 0, *r, b)
HL_TRACED_PSETUP(Recv_init,
                 (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request *r),
                 (b, n, t, s, g, c, r), c, g, n, t, s, 0, *r, b)
HL_TRACED_PART(Start, (MPI_Request *r), (HL_STARTING(1, r)), -1, -1, *r, -1)
/* the requests started, as they were given ("requests"; done 0) */
HL_TRACED_WAITALL(Startall, (int n, MPI_Request r[]), (n, HL_STARTING(n, r)), 0, n, r)
/* MPI-4 partitioned calls, where the library has them (Open MPI 5's mpi.h says 3.1 but has
 * them): a traced build against an MPI without them still compiles */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
HL_TRACED_PSETUP(Psend_init,
                 (const void *b, int parts, MPI_Count n, MPI_Datatype t, int d, int g, MPI_Comm c,
                  MPI_Info info, MPI_Request *r),
                 (b, parts, n, t, d, g, c, info, r), c, g, n, t, d, parts, *r, b)
HL_TRACED_PSETUP(Precv_init,
                 (void *b, int parts, MPI_Count n, MPI_Datatype t, int s, int g, MPI_Comm c,
                  MPI_Info info, MPI_Request *r),
                 (b, parts, n, t, s, g, c, info, r), c, g, n, t, s, parts, *r, b)
/* MPI-4's non-blocking send-receive: an MPI_Sendrecv whose request is posted */
HL_TRACED_SENDRECV(Isendrecv,
              (const void *sb, int sn, MPI_Datatype st, int d, int sg, void *rb, int rn,
               MPI_Datatype rt, int s, int rg, MPI_Comm c, MPI_Request *r),
              (HL_SENT(sb, sn, st, d, c), sn, st, d, sg, HL_RECEIVED(rb), rn, rt, s, rg, c,
               HL_POSTING(r)), c, sg, sn, st, d, rn, rt, s)
HL_TRACED_SENDRECV(Isendrecv_replace,
              (void *b, int n, MPI_Datatype t, int d, int sg, int s, int rg, MPI_Comm c,
               MPI_Request *r),
              (HL_RECEIVED(b), n, t, d, sg, s, rg, c, HL_POSTING(r)), c, sg, n, t, d, n, t, s)
HL_TRACED_PART(Pready, (int part, MPI_Request r), (part, r), part, part, r, -1)
HL_TRACED_PART(Pready_range, (int low, int high, MPI_Request r), (low, high, r), low, high, r, -1)
/* a list of partitions: its lowest to highest, and the list itself as "requests" ("0,2"); the
 * list passed on without const (Open MPI 5 declares it int[], MPICH const int[]) */
HL_TRACED_PART(Pready_list, (int n, const int parts[], MPI_Request r), (n, (int *)parts, r),
               part_list(&c_, n, parts), list_last(n, parts), r, -1)
HL_TRACED_PART(Parrived, (MPI_Request r, int part, int *f), (r, part, f), part, part, r, *f)
#endif

/* neighbourhood collectives (on a Cartesian or graph communicator: its members are recorded; an
 * alltoall's bytes to and from the neighbours that are ranks, "bytes" and "recv_bytes", lab 13) */
HL_TRACED_HOOD(Neighbor_alltoall,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rt, c), c, hood_bytes(c, 0, sn, NULL, st, NULL),
          hood_bytes(c, 1, rn, NULL, rt, NULL))
HL_TRACED_HOOD(Neighbor_alltoallv,
          (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb,
           const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c),
          (sb, sn, sd, st, rb, rn, rd, rt, c), c, hood_bytes(c, 0, 0, sn, st, NULL),
          hood_bytes(c, 1, 0, rn, rt, NULL))
HL_TRACED_HOOD(Neighbor_alltoallw,
          (const void *sb, const int sn[], const MPI_Aint sd[], const MPI_Datatype st[], void *rb,
           const int rn[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm c),
          (sb, sn, sd, st, rb, rn, rd, rt, c), c, hood_bytes(c, 0, 0, sn, MPI_DATATYPE_NULL, st),
          hood_bytes(c, 1, 0, rn, MPI_DATATYPE_NULL, rt))
HL_TRACED_IHOOD(Ineighbor_alltoallv,
          (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb,
           const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c, MPI_Request *r),
          (sb, sn, sd, st, rb, rn, rd, rt, c, r), c, hood_bytes(c, 0, 0, sn, st, NULL),
          hood_bytes(c, 1, 0, rn, rt, NULL), *r)
HL_TRACED_COMM(Neighbor_allgather,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rt, c), c)
HL_TRACED_COMM(Neighbor_allgatherv,
          (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int rd[],
           MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rd, rt, c), c)
/* their non-blocking forms (MPI 3.0, section 7.7): the request each returns is recorded (the
 * send buffer watched, HL_POSTED, where one count and type give it: not alltoallv's, alltoallw's) */
HL_TRACED_IHOOD(Ineighbor_alltoall,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c,
           MPI_Request *r),
          (HL_POSTED(sb, (long)sn * out_degree(c), st), sn, st, rb, rn, rt, c, r), c,
          hood_bytes(c, 0, sn, NULL, st, NULL), hood_bytes(c, 1, rn, NULL, rt, NULL), *r)
HL_TRACED_IHOOD(Ineighbor_alltoallw,
          (const void *sb, const int sn[], const MPI_Aint sd[], const MPI_Datatype st[], void *rb,
           const int rn[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm c,
           MPI_Request *r),
          (sb, sn, sd, st, rb, rn, rd, rt, c, r), c, hood_bytes(c, 0, 0, sn, MPI_DATATYPE_NULL, st),
          hood_bytes(c, 1, 0, rn, MPI_DATATYPE_NULL, rt), *r)
HL_TRACED_ICOMM(Ineighbor_allgather,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c,
           MPI_Request *r),
          (HL_POSTED(sb, sn, st), sn, st, rb, rn, rt, c, r), c, *r)
HL_TRACED_ICOMM(Ineighbor_allgatherv,
          (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int rd[],
           MPI_Datatype rt, MPI_Comm c, MPI_Request *r),
          (HL_POSTED(sb, sn, st), sn, st, rb, rn, rd, rt, c, r), c, *r)

/* MPI-3 shared memory windows (MPI+MPI): the allocation is a collective on its communicator */
HL_TRACED_COMM(Win_allocate_shared,
          (MPI_Aint size, int unit, MPI_Info info, MPI_Comm c, void *base, MPI_Win *w),
          (size, unit, info, c, base, w), c)
HL_TRACED_SHARED(Win_shared_query, (MPI_Win w, int r, MPI_Aint *size, int *unit, void *base),
          (w, r, size, unit, base), w, r, size, base)
HL_TRACED_MODE(Win_fence, (int a, MPI_Win w), (a, w), a)
HL_TRACED(Win_sync, (MPI_Win w), (w))
HL_TRACED_MODE(Win_lock_all, (int a, MPI_Win w), (a, w), a)
HL_TRACED(Win_unlock_all, (MPI_Win w), (w))
HL_TRACED(Win_free, (MPI_Win *w), (w))


/* queries a student's code may make, passed through unrecorded (nothing to judge in them):
 * HL_QUERY(return type, name, params, args) */
HL_QUERY(double, Wtime, (void), ())
HL_QUERY(double, Wtick, (void), ())
HL_QUERY(int, Is_thread_main, (int *flag), (flag))
HL_QUERY(int, Initialized, (int *flag), (flag))
HL_QUERY(int, Finalized, (int *flag), (flag))
HL_QUERY(int, Get_processor_name, (char *name, int *len), (name, len))
HL_QUERY(int, Get_version, (int *version, int *subversion), (version, subversion))
HL_QUERY(int, Get_library_version, (char *text, int *len), (text, len))
HL_QUERY(int, Type_size, (MPI_Datatype t, int *size), (t, size))
HL_QUERY(int, Get_address, (const void *location, MPI_Aint *address), (location, address))
HL_QUERY(int, Comm_compare, (MPI_Comm a, MPI_Comm b, int *result), (a, b, result))
HL_QUERY(int, Topo_test, (MPI_Comm c, int *status), (c, status))
HL_QUERY(int, Cartdim_get, (MPI_Comm c, int *nd), (c, nd))
HL_QUERY(int, Cart_get, (MPI_Comm c, int nd, int dims[], int periods[], int coords[]),
         (c, nd, dims, periods, coords))
HL_QUERY(int, Error_string, (int code, char *text, int *len), (code, text, len))
