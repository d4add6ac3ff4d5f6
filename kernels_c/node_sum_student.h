/* Lab 06: the student's node-aware sum for node_sum.c. */
#ifndef NODE_SUM_STUDENT_H
#define NODE_SUM_STUDENT_H
#include "hybridlab.h"
#include "hl_node_split.h" /* the nodes, real or made up (ranks_per_node) */

/* Split `world` into a communicator of the ranks of this node and one of the node leaders (the
 * node's rank 0; MPI_COMM_NULL on the other ranks). */
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders);
/* The sum of every thread's `mine` (n values) over all ranks into `sum` on every thread, in three
 * steps: on the node to its leader, between the leaders, back over the node. */
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders);

#endif
