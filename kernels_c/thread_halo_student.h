/* Lab 12: the student's code for thread_halo.c, on lab 04's 2-D grid (hl_grid2d.h). `a` holds
 * m + 2 rows of nx + 2 values (row-major, a row is w = nx + 2 long); rows 1..m are this rank's,
 * rows 0 and m + 1 the halos; up/down are MPI_PROC_NULL at the edges of the grid. The exchange
 * sends row 1 to `up` (into its row m + 1) and row m to `down` (into its row 0). */
#ifndef THREAD_HALO_STUDENT_H
#define THREAD_HALO_STUDENT_H
#include "hybridlab.h"

/* (a) variant=multiple, MPI_THREAD_MULTIPLE. Called once per run by the main thread before the
 * parallel region: comms[t] is the communicator thread t will exchange on (nthreads of them).
 * The kit frees after the run those that differ from comm. */
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]);
/* (a) Called by every thread of the team at once, once per iteration, between two barriers:
 * thread t of T exchanges its slice of the halo rows, columns 1 + t*nx/T to (t+1)*nx/T
 * (integer division), on `mine` (comms[t]). */
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine);

/* (b) variant=tasks, MPI_THREAD_MULTIPLE. Called by one thread of the team (inside `omp single`)
 * once per iteration; the team runs the tasks it creates, all finished at the end of the single.
 * It computes every row 1..m of the new grid with stencil_rows while the halo rows are exchanged:
 * the rows that need no halo without waiting for the messages, rows 1 and m only after theirs
 * arrived (the halo rows hold NaN until then). */
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm);
/* The kit's helper: computes rows first..last (1 <= first <= last <= m) of the new grid (and
 * records when, for the overlap check). */
void stencil_rows(long first, long last);
/* The kit reads the run-sched ICV (what task_iteration's own body did, outside every task): a
 * cell may not call omp_set_schedule (hybridlab.kernels.unit_checks). */
#define HL_SCHEDULE_IS_EVIDENCE 1

#ifdef HL_HAVE_PARTITIONED
/* (d) variant=pready, MPI_THREAD_MULTIPLE, MPI-4 partitioned communication. Called once per run
 * by the main thread, outside any parallel region: set up the partitioned requests of the halo
 * rows, `parts` partitions of nx / parts values each (partition t: columns 1 + t*nx/parts to
 * (t+1)*nx/parts): row 1 sent to `up` and row 0 received from it, row m sent to `down` and row
 * m + 1 received from it, none towards MPI_PROC_NULL. Returns how many requests it put in req;
 * the kit hands them to pready_iteration and frees them after the run. */
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]);
/* (d) Called once per iteration by the main thread, outside any parallel region, after the sweep
 * wrote the new rows 1..m into `fresh` (laid out as `a`) and the halo rows that come from a
 * neighbour were set to NaN: start the requests, copy rows 1 and m from fresh into a in a
 * parallel region of `parts` threads where thread t copies its own partition (copy_partition(t))
 * and then marks it ready in every send, and complete the requests, so that a's halo rows hold
 * the neighbours' rows when it returns. The kit copies rows 2..m-1. */
void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]);
/* The kit's helper: copies partition t (columns 1 + t*nx/parts to (t+1)*nx/parts) of rows 1 and
 * m from fresh into a, and records which thread copied it and when (the check of who copied). */
void copy_partition(int t);
#endif

#endif
