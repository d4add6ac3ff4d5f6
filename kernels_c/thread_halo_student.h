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

#endif
