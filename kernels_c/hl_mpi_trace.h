/* hl_mpi_trace.h: every MPI call a unit makes goes to the kit's tracer, which records it with the
 * thread that made it.
 *
 * Not included by hand: hybridlab.kernels.build(name, trace_mpi=True) and build_source(..., trace_mpi=True)
 * compile the unit with -DHL_TRACE_MPI -include hl_mpi_trace.h and link it with the kit's tracer
 * object (kernels_c/hl_trace.c, compiled out of line; its buffers, clock origin and key are static
 * there, out of every other unit's reach). This header only declares the tracer's entry points
 * and redirects each MPI name to one (`#define MPI_Send HL_ENTRY(MPI_Send)`), the
 * profiling-interface idea of the MUST correctness checker done at compile time, so it works the
 * same in a library an engine loads with ctypes and in a program under mpiexec.
 *
 *   a student's unit (-DHL_STUDENT_TU, hybridlab.runs.student_c) and a whole program
 *   (-DHL_WHOLE_PROGRAM, hybridlab.slurm.jobs): the names go to hl_traced_MPI_* ("student": 1 in the
 *   records), before hybridlab.h is included, so the kit's public helpers the unit calls
 *   (hl_measure's barriers, hl_require_level's query) are recorded too and the compiled unit
 *   refers to no real MPI function at all (hybridlab.kernels.unit_checks refuses one that does);
 *   a kit's unit (a kernel): hybridlab.h first, so the kit's own MPI calls (hl_measure's barriers
 *   and reductions, the records' gather) stay untraced and never count against the kernel, then
 *   the names go to hl_kit_MPI_* ("student": 0).
 *
 * Records (hl_trace.c writes them at the end of hl_run, hybridlab.runs.records reads them): one per
 * kept call, "record":"mpi_call","call":"MPI_Send","start":S,"end":E (seconds since the run
 * began), "main","in_parallel","level","team","tid","concurrent","done","comm_size","comm",
 * "student","comm_id","tag","count",..., "step" (the kernel's iteration, hl_trace_step; -1 when
 * it marks none); one "computed" interval per stretch of a kit helper's computing
 * (hl_trace_compute: lab 03's compute_step) or per call of a helper that computes rows of a grid
 * (hl_trace_rows: lab 04's stencil_rows, with "first" and "last", -1 otherwise); one summary per
 * rank, "record":"mpi_trace","calls","kept","not_main","in_parallel","concurrent","computed".
 * hybridlab.runs.compliance judges them against a thread level.
 *
 * The names are redirected once: traced source cannot `#define MPI_Send MPI_Ssend` itself (a
 * redefinition); -DHL_SYNCHRONOUS_SENDS (a student's unit) makes MPI_Send and MPI_Isend an
 * MPI_Ssend and MPI_Issend, still recorded as themselves.
 */
#ifndef HL_MPI_TRACE_H
#define HL_MPI_TRACE_H

#ifndef HL_TRACE_MPI
#error "hl_mpi_trace.h is included by build(..., trace_mpi=True), which also defines HL_TRACE_MPI"
#endif

#if defined(HL_STUDENT_TU) || defined(HL_WHOLE_PROGRAM)
#define HL_ENTRY(name) hl_traced_##name
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#else
#define HL_ENTRY(name) hl_kit_##name
#include "hybridlab.h"
#endif

/* the entry points (kernels_c/hl_trace.c), one per function of hl_trace_calls.h */
#define HL_TRACED(name, params, args) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_COMM(name, params, args, comm) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_ICOMM(name, params, args, comm, request) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_HOOD(name, params, args, comm, sent, received) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_IHOOD(name, params, args, comm, sent, received, request) \
    int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_SENT(name, params, args, comm, count, type) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_ISENT(name, params, args, comm, count, type, request) \
    int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_REDUCE(name, params, args, comm, count, type, request) \
    int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_WAIT(name, params, args, flag, request) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_WAITALL(name, params, args, flag, count, array) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_SOME(name, params, args, flag, count, array, kept, indices) \
    int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_P2P(name, params, args, comm, tag, count, type, peer)                          \
    int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_SENDRECV(name, params, args, comm, tag, count, type, peer, rcount, rtype, rpeer) \
    int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_PSETUP(name, params, args, comm, tag, count, type, peer, parts, request, buffer) \
    int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_PART(name, params, args, low, high, request, flag) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_P2P_AS(entry, name, real, params, args, comm, tag, count, type, peer)                       \
    int HL_ENTRY(entry) params;
#define HL_TRACED_PROBE(name, params, args, comm, message) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_MRECV(name, params, args, count, type, message) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_MODE(name, params, args, mode) int HL_ENTRY(MPI_##name) params;
#define HL_TRACED_SHARED(name, params, args, win, rank, size, base) int HL_ENTRY(MPI_##name) params;
#define HL_QUERY(type, name, params, args) type HL_ENTRY(MPI_##name) params;
#include "hl_trace_calls.h"
#undef HL_TRACED
#undef HL_TRACED_COMM
#undef HL_TRACED_ICOMM
#undef HL_TRACED_HOOD
#undef HL_TRACED_IHOOD
#undef HL_TRACED_SENT
#undef HL_TRACED_ISENT
#undef HL_TRACED_REDUCE
#undef HL_TRACED_WAIT
#undef HL_TRACED_WAITALL
#undef HL_TRACED_SOME
#undef HL_TRACED_MODE
#undef HL_TRACED_SHARED
#undef HL_TRACED_PROBE
#undef HL_TRACED_MRECV
#undef HL_TRACED_P2P
#undef HL_TRACED_P2P_AS
#undef HL_TRACED_SENDRECV
#undef HL_TRACED_PSETUP
#undef HL_TRACED_PART
#undef HL_QUERY
int HL_ENTRY(MPI_Abort)(MPI_Comm c, int code);
int HL_ENTRY(MPI_Query_thread)(int *level); /* the level the program is shown (hl_trace.c) */

#ifdef HL_SYNCHRONOUS_SENDS /* a standard send waits for its receive, as the standard allows */
#define MPI_Send HL_ENTRY(MPI_Send_synchronous)
#define MPI_Isend HL_ENTRY(MPI_Isend_synchronous)
#else
#define MPI_Send HL_ENTRY(MPI_Send)
#define MPI_Isend HL_ENTRY(MPI_Isend)
#endif
#define MPI_Ssend HL_ENTRY(MPI_Ssend)
#define MPI_Bsend HL_ENTRY(MPI_Bsend)
#define MPI_Rsend HL_ENTRY(MPI_Rsend)
#define MPI_Recv HL_ENTRY(MPI_Recv)
#define MPI_Issend HL_ENTRY(MPI_Issend)
#define MPI_Ibsend HL_ENTRY(MPI_Ibsend)
#define MPI_Irsend HL_ENTRY(MPI_Irsend)
#define MPI_Irecv HL_ENTRY(MPI_Irecv)
#define MPI_Sendrecv HL_ENTRY(MPI_Sendrecv)
#define MPI_Sendrecv_replace HL_ENTRY(MPI_Sendrecv_replace)
#define MPI_Wait HL_ENTRY(MPI_Wait)
#define MPI_Waitall HL_ENTRY(MPI_Waitall)
#define MPI_Waitany HL_ENTRY(MPI_Waitany)
#define MPI_Waitsome HL_ENTRY(MPI_Waitsome)
#define MPI_Test HL_ENTRY(MPI_Test)
#define MPI_Testall HL_ENTRY(MPI_Testall)
#define MPI_Testany HL_ENTRY(MPI_Testany)
#define MPI_Testsome HL_ENTRY(MPI_Testsome)
#define MPI_Probe HL_ENTRY(MPI_Probe)
#define MPI_Iprobe HL_ENTRY(MPI_Iprobe)
#define MPI_Get_count HL_ENTRY(MPI_Get_count)
#define MPI_Mprobe HL_ENTRY(MPI_Mprobe)
#define MPI_Improbe HL_ENTRY(MPI_Improbe)
#define MPI_Mrecv HL_ENTRY(MPI_Mrecv)
#define MPI_Imrecv HL_ENTRY(MPI_Imrecv)
#define MPI_Request_free HL_ENTRY(MPI_Request_free)
#define MPI_Barrier HL_ENTRY(MPI_Barrier)
#define MPI_Ibarrier HL_ENTRY(MPI_Ibarrier)
#define MPI_Bcast HL_ENTRY(MPI_Bcast)
#define MPI_Ibcast HL_ENTRY(MPI_Ibcast)
#define MPI_Reduce HL_ENTRY(MPI_Reduce)
#define MPI_Allreduce HL_ENTRY(MPI_Allreduce)
#define MPI_Iallreduce HL_ENTRY(MPI_Iallreduce)
#define MPI_Ireduce HL_ENTRY(MPI_Ireduce)
#define MPI_Scan HL_ENTRY(MPI_Scan)
#define MPI_Exscan HL_ENTRY(MPI_Exscan)
#define MPI_Reduce_scatter_block HL_ENTRY(MPI_Reduce_scatter_block)
#define MPI_Alltoall HL_ENTRY(MPI_Alltoall)
#define MPI_Ialltoall HL_ENTRY(MPI_Ialltoall)
#define MPI_Alltoallv HL_ENTRY(MPI_Alltoallv)
#define MPI_Allgather HL_ENTRY(MPI_Allgather)
#define MPI_Allgatherv HL_ENTRY(MPI_Allgatherv)
#define MPI_Gather HL_ENTRY(MPI_Gather)
#define MPI_Gatherv HL_ENTRY(MPI_Gatherv)
#define MPI_Scatter HL_ENTRY(MPI_Scatter)
#define MPI_Scatterv HL_ENTRY(MPI_Scatterv)
#define MPI_Comm_rank HL_ENTRY(MPI_Comm_rank)
#define MPI_Comm_size HL_ENTRY(MPI_Comm_size)
#define MPI_Comm_split HL_ENTRY(MPI_Comm_split)
#define MPI_Comm_split_type HL_ENTRY(MPI_Comm_split_type)
#define MPI_Comm_dup HL_ENTRY(MPI_Comm_dup)
#define MPI_Comm_dup_with_info HL_ENTRY(MPI_Comm_dup_with_info)
#define MPI_Comm_create HL_ENTRY(MPI_Comm_create)
#define MPI_Comm_create_group HL_ENTRY(MPI_Comm_create_group)
#define MPI_Comm_free HL_ENTRY(MPI_Comm_free)
#define MPI_Cart_create HL_ENTRY(MPI_Cart_create)
#define MPI_Cart_shift HL_ENTRY(MPI_Cart_shift)
#define MPI_Cart_coords HL_ENTRY(MPI_Cart_coords)
#define MPI_Type_contiguous HL_ENTRY(MPI_Type_contiguous)
#define MPI_Type_vector HL_ENTRY(MPI_Type_vector)
#define MPI_Type_create_hvector HL_ENTRY(MPI_Type_create_hvector)
#define MPI_Type_indexed HL_ENTRY(MPI_Type_indexed)
#define MPI_Type_create_subarray HL_ENTRY(MPI_Type_create_subarray)
#define MPI_Type_create_resized HL_ENTRY(MPI_Type_create_resized)
#define MPI_Type_commit HL_ENTRY(MPI_Type_commit)
#define MPI_Type_free HL_ENTRY(MPI_Type_free)
#define MPI_Dims_create HL_ENTRY(MPI_Dims_create)
#define MPI_Cart_rank HL_ENTRY(MPI_Cart_rank)
#define MPI_Dist_graph_create_adjacent HL_ENTRY(MPI_Dist_graph_create_adjacent)
#define MPI_Comm_group HL_ENTRY(MPI_Comm_group)
#define MPI_Group_translate_ranks HL_ENTRY(MPI_Group_translate_ranks)
#define MPI_Group_incl HL_ENTRY(MPI_Group_incl)
#define MPI_Group_excl HL_ENTRY(MPI_Group_excl)
#define MPI_Group_free HL_ENTRY(MPI_Group_free)
#define MPI_Query_thread HL_ENTRY(MPI_Query_thread)
#define MPI_Send_init HL_ENTRY(MPI_Send_init)
#define MPI_Ssend_init HL_ENTRY(MPI_Ssend_init)
#define MPI_Recv_init HL_ENTRY(MPI_Recv_init)
#define MPI_Start HL_ENTRY(MPI_Start)
#define MPI_Startall HL_ENTRY(MPI_Startall)
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define MPI_Psend_init HL_ENTRY(MPI_Psend_init)
#define MPI_Precv_init HL_ENTRY(MPI_Precv_init)
#define MPI_Isendrecv HL_ENTRY(MPI_Isendrecv)
#define MPI_Isendrecv_replace HL_ENTRY(MPI_Isendrecv_replace)
#define MPI_Pready HL_ENTRY(MPI_Pready)
#define MPI_Pready_range HL_ENTRY(MPI_Pready_range)
#define MPI_Pready_list HL_ENTRY(MPI_Pready_list)
#define MPI_Parrived HL_ENTRY(MPI_Parrived)
#endif
#define MPI_Neighbor_alltoall HL_ENTRY(MPI_Neighbor_alltoall)
#define MPI_Neighbor_alltoallv HL_ENTRY(MPI_Neighbor_alltoallv)
#define MPI_Neighbor_alltoallw HL_ENTRY(MPI_Neighbor_alltoallw)
#define MPI_Ineighbor_alltoall HL_ENTRY(MPI_Ineighbor_alltoall)
#define MPI_Ineighbor_alltoallv HL_ENTRY(MPI_Ineighbor_alltoallv)
#define MPI_Ineighbor_alltoallw HL_ENTRY(MPI_Ineighbor_alltoallw)
#define MPI_Neighbor_allgather HL_ENTRY(MPI_Neighbor_allgather)
#define MPI_Neighbor_allgatherv HL_ENTRY(MPI_Neighbor_allgatherv)
#define MPI_Ineighbor_allgather HL_ENTRY(MPI_Ineighbor_allgather)
#define MPI_Ineighbor_allgatherv HL_ENTRY(MPI_Ineighbor_allgatherv)
#define MPI_Win_allocate_shared HL_ENTRY(MPI_Win_allocate_shared)
#define MPI_Win_shared_query HL_ENTRY(MPI_Win_shared_query)
#define MPI_Win_fence HL_ENTRY(MPI_Win_fence)
#define MPI_Win_sync HL_ENTRY(MPI_Win_sync)
#define MPI_Win_lock_all HL_ENTRY(MPI_Win_lock_all)
#define MPI_Win_unlock_all HL_ENTRY(MPI_Win_unlock_all)
#define MPI_Win_free HL_ENTRY(MPI_Win_free)
#define MPI_Abort HL_ENTRY(MPI_Abort)

#define MPI_Wtime HL_ENTRY(MPI_Wtime)
#define MPI_Wtick HL_ENTRY(MPI_Wtick)
#define MPI_Is_thread_main HL_ENTRY(MPI_Is_thread_main)
#define MPI_Initialized HL_ENTRY(MPI_Initialized)
#define MPI_Finalized HL_ENTRY(MPI_Finalized)
#define MPI_Get_processor_name HL_ENTRY(MPI_Get_processor_name)
#define MPI_Get_version HL_ENTRY(MPI_Get_version)
#define MPI_Get_library_version HL_ENTRY(MPI_Get_library_version)
#define MPI_Type_size HL_ENTRY(MPI_Type_size)
#define MPI_Get_address HL_ENTRY(MPI_Get_address)
#define MPI_Comm_compare HL_ENTRY(MPI_Comm_compare)
#define MPI_Topo_test HL_ENTRY(MPI_Topo_test)
#define MPI_Cartdim_get HL_ENTRY(MPI_Cartdim_get)
#define MPI_Cart_get HL_ENTRY(MPI_Cart_get)
#define MPI_Error_string HL_ENTRY(MPI_Error_string)

#ifdef HL_WHOLE_PROGRAM /* a whole program: MPI_Init* start the trace, MPI_Finalize writes it */
int hl_traced_MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int hl_traced_MPI_Init(int *argc, char ***argv);
int hl_traced_MPI_Finalize(void);
#define MPI_Init_thread hl_traced_MPI_Init_thread
#define MPI_Init hl_traced_MPI_Init
#define MPI_Finalize hl_traced_MPI_Finalize
#endif

#if defined(HL_STUDENT_TU) || defined(HL_WHOLE_PROGRAM)
#include "hybridlab.h" /* after the redirects: its helpers' MPI calls are traced too */
#else
/* for the kit's units: a kit helper's computing, and the records of hl_run (hl_runtime.h) */
void hl_trace_compute(double start, double end);
void hl_trace_rows(double start, double end, long first, long last); /* rows of a grid */
void hl_trace_step(long iteration); /* the kernel starts an iteration: calls and intervals carry it */
int hl_trace_event(const char *fields, double start, double end); /* a kit helper's act, streamed */
int hl_trace_streaming(void); /* this run's records go to a stream */
double hl_trace_origin_time(void); /* hl_now() when the run's trace began */
/* task stamps (hl_trace.c): mark the calling task before a student's function; stamp (a
 * student's MPI call: mpi=1, stencil_rows: 0) returns the MPI stamps its task took before, -1
 * unmarked; unmark adds what the marked task's own body stamped and restores its schedule */
void hl_trace_task_mark(void);
int hl_trace_task_stamp(int mpi);
void hl_trace_task_unmark(long *rows, long *calls);
/* around the creation of a student's task: fresh clears the creator's stamp for the child to
 * inherit (returns the creator's, -1 unmarked), restore puts it back */
int hl_trace_task_fresh(void);
void hl_trace_task_restore(int chunk);
/* run `hook` before each of the student's MPI calls from now on (NULL: none) */
void hl_trace_on_student_call(void (*hook)(void));
/* give each of the student's reductions the send buffer `hook` returns (root -1: an allreduce;
 * with MPI_IN_PLACE the hook may change the receive buffer's values); NULL: none */
void hl_trace_on_student_reduce(const void *(*hook)(const void *sb, void *rb, int n,
                                                    MPI_Datatype t, MPI_Op op, int root,
                                                    MPI_Comm c));
/* read each of the student's receives as it completes: `hook` writes what the `count` elements
 * it got hold (a short text, no quotes, commas or slashes) into out, returning its length; the
 * completing call's record keeps it ("held", under the thread that posted the receive); NULL:
 * none */
void hl_trace_on_student_receive(int (*hook)(const void *buffer, long count, MPI_Datatype type,
                                             char *out, size_t cap));
/* hold each of the student's calls, once begun, until `hook` returns; it is given a function
 * returning how many calls of the rank are inside MPI now (its own included); NULL: none */
void hl_trace_on_student_hold(void (*hook)(int (*inside)(void)));
#endif

#endif /* HL_MPI_TRACE_H */
