// Where the ranks of a communicator run: which of them share a node, how many
// nodes there are, and how many CPUs a node's ranks may use.
//
// Measured once per communicator (Comm's constructor) because the measure is
// MPI_Comm_split_type, a blocking collective in which MPICH's waiting ranks
// busy-poll: on a node with more ranks than cores each call waits for
// descheduled ranks while the waiting ones spin. A tiny run on 3 ranks over
// 2 cores spent 70% of its CPU time in five such calls when each caller made
// its own.
#pragma once

#include <mpi.h>

namespace dsanalyze {

struct NodeLayout {
  int node_rank = 0;  // this rank's place among the ranks of its node
  int node_size = 1;  // ranks on this rank's node
  int nodes = 1;      // nodes the communicator spans (shared-memory domains)
  // CPUs this node's ranks may run on: the union of their sched_getaffinity
  // masks (every hardware thread when a mask cannot be read), so a job under
  // `taskset -c 0` counts one.
  int node_cpus = 1;
};

// Collective over `comm`: every rank calls it at the same point.
NodeLayout MeasureNodeLayout(MPI_Comm comm);

}  // namespace dsanalyze
