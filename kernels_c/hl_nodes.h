/* hl_nodes.h: "nodes" for the node-aware exercises of labs 06 and 07, real or made up.
 *
 * A kernel that includes this header (after hybridlab.h) gets hl_node_split(), which behaves as
 * MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, key, info, out) - the ranks that share memory,
 * that is one node - except when the kernel set hl_fake_ranks_per_node > 0: then rank r of comm
 * is put on "node" r / hl_fake_ranks_per_node (consecutive ranks, MPI_Comm_split), so that code
 * written for many nodes can be run and checked on one machine, where every rank shares memory.
 *
 * With HL_STUDENT_NODES (lab 06) or HL_STUDENT_ALLTOALL (lab 07) defined the header also sends the student's own MPI_Comm_split_type
 * calls through hl_node_split (the redirect is defined after hl_node_split, whose body still
 * calls the real, or traced, MPI function), and makes MPI_Send synchronous (MPI_Ssend).
 */
#ifndef HL_NODES_H
#define HL_NODES_H

#include "hybridlab.h"

static int hl_fake_ranks_per_node; /* 0: real nodes (MPI_COMM_TYPE_SHARED) */

static inline int hl_node_split(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out) {
    if (hl_fake_ranks_per_node > 0 && type == MPI_COMM_TYPE_SHARED) {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        return MPI_Comm_split(comm, rank / hl_fake_ranks_per_node, key, out);
    }
    return MPI_Comm_split_type(comm, type, key, info, out);
}

/* The node leaders (rank 0 of each node communicator), MPI_COMM_NULL on every other rank: the
 * kit's reference, against which a student's communicators are compared. */
static inline MPI_Comm hl_node_leaders(MPI_Comm comm, MPI_Comm node) {
    int rank = 0, node_rank = 0;
    MPI_Comm leaders = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_split(comm, node_rank == 0 ? 0 : MPI_UNDEFINED, rank, &leaders);
    return leaders;
}

/* 1 when a and b hold the same ranks in the same order (or both are MPI_COMM_NULL). */
static inline int hl_same_group(MPI_Comm a, MPI_Comm b) {
    if (a == MPI_COMM_NULL || b == MPI_COMM_NULL) return a == b;
    int result = MPI_UNEQUAL;
    MPI_Comm_compare(a, b, &result);
    return result == MPI_IDENT || result == MPI_CONGRUENT;
}

#if defined(HL_STUDENT_NODES) || defined(HL_STUDENT_ALLTOALL)
#undef MPI_Comm_split_type
#define MPI_Comm_split_type hl_node_split
/* A standard send may legally wait for its receive (MPICH buffers small ones instead, which
 * hides unsafe orderings on one machine): in the student's code it always waits. */
#undef MPI_Send
#define MPI_Send MPI_Ssend
#endif

#endif
