/* hl_nodes.h: "nodes" for the node-aware exercises of labs 06 and 07, real or made up.
 *
 * A kernel that includes this header (after hybridlab.h) gets hl_node_split() (hl_node_split.h),
 * which behaves as MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, key, info, out) - the ranks
 * that share memory, that is one node - except when the kernel set hl_fake_ranks_per_node > 0:
 * then rank r of comm is put on "node" r / hl_fake_ranks_per_node (consecutive ranks,
 * MPI_Comm_split), so that code written for many nodes can be run and checked on one machine,
 * where every rank shares memory. hl_nodes_make() reads the kernel's ranks_per_node parameter
 * (HL_NODES_PARAMS) and makes the kit's node and leader communicators, against which a student's
 * are compared: they stay in the kernel's translation unit (a student's unit includes
 * hl_node_split.h only, through node_sum_student.h or alltoall_nodes_student.h).
 */
#ifndef HL_NODES_H
#define HL_NODES_H

#include "hybridlab.h"

#include "hl_node_split.h"

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

/* A node exercise runs the kit's flat code or, built with the student's (HL_STUDENT_NODES,
 * HL_STUDENT_ALLTOALL), the student's node-aware code. */
#if defined(HL_STUDENT_NODES) || defined(HL_STUDENT_ALLTOALL)
#define HL_NODE_VARIANTS 2
#else
#define HL_NODE_VARIANTS 1
#endif
enum { HL_FLAT, HL_STUDENT };
__attribute__((unused)) static const char *const hl_node_variant_names[2] = {"flat", "student"};

/* The parameters hl_nodes_make reads, for a node exercise's hl_kernel_params table. */
#define HL_NODES_PARAMS                                                                           \
    {"variant", "flat", "flat (the kit's) | student (the exercise's node-aware code)"},            \
    {"ranks_per_node", "0", "0: real nodes (MPI_COMM_TYPE_SHARED); k > 0: nodes of k ranks"},    \
    {"reps", "3", "repetitions (each one checked and timed)"}

/* The kit's nodes of a communicator, as hl_nodes_make makes them, and the exercise's settings. */
typedef struct {
    int variant;          /* HL_FLAT or HL_STUDENT */
    long reps;
    MPI_Comm node;        /* this rank's node */
    MPI_Comm leaders;     /* the node leaders; MPI_COMM_NULL on every other rank */
    int node_rank, node_size;
    int leader;           /* the rank (in comm) of this node's leader */
    int nodes;            /* how many nodes comm spans */
    long ranks_per_node;  /* the parameter: 0 for the real nodes */
} hl_nodes;

/* Reads the kernel's HL_NODES_PARAMS and makes the nodes of comm with hl_node_split and
 * hl_node_leaders. Collective over comm; 0, or -1 with ctx->error set (before any
 * communicator is made). Release with hl_nodes_free. */
static inline int hl_nodes_make(hl_ctx *ctx, MPI_Comm comm, hl_nodes *out) {
    int ok = 1, rank = 0;
    memset(out, 0, sizeof *out);
    out->node = out->leaders = MPI_COMM_NULL;
    out->variant = hl_param_choice(ctx, "variant", hl_node_variant_names, HL_NODE_VARIANTS);
    if (out->variant < 0) return -1;
    out->ranks_per_node = hl_param_long(ctx, "ranks_per_node", 0, &ok);
    if (ok) out->reps = hl_param_long(ctx, "reps", 1, &ok);
    if (!ok) return -1;
    if (out->ranks_per_node > 1000000)
        return hl_fail(ctx, "parameter ranks_per_node=%ld is too large", out->ranks_per_node);
    hl_fake_ranks_per_node = (int)out->ranks_per_node;
    MPI_Comm_rank(comm, &rank);
    hl_node_split(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &out->node);
    out->leaders = hl_node_leaders(comm, out->node);
    MPI_Comm_rank(out->node, &out->node_rank);
    MPI_Comm_size(out->node, &out->node_size);
    out->leader = rank;
    MPI_Bcast(&out->leader, 1, MPI_INT, 0, out->node);
    int is_leader = out->node_rank == 0;
    MPI_Allreduce(&is_leader, &out->nodes, 1, MPI_INT, MPI_SUM, comm);
    return 0;
}

static inline void hl_nodes_free(hl_nodes *n) {
    if (n->leaders != MPI_COMM_NULL) MPI_Comm_free(&n->leaders);
    if (n->node != MPI_COMM_NULL) MPI_Comm_free(&n->node);
}

#endif
