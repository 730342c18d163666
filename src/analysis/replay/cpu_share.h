// Replay's CPU sharing, in a step with no GPU work (a CPU-only job; collectives on the CPU, as
// gloo's): each thread's node asks for a core of its rank's host while it runs, or the share of
// one its thread's recorded CPU time says (its demand, Node::demand: a node that sleeps or waits
// asks for none), each collective's transfer a core on each of its ranks' hosts, and a host runs
// no more work at once than it has cores. A host's running work asking for k cores of C gives
// each a share C/k of what it asks when k > C, else all; a node of demand d progresses at
// (1 - d) + d x share (the part of its time it waits does not slow). What a node measured is
// then its work slowed by what shared the host's cores with it: its work, the time it would
// take with a core to itself, is the integral of that rate over its measured time. The
// simulation runs each node at that rate (processor sharing), so that an unchanged step
// replays as measured, and a what-if that moves transfers beside the backward pass (smaller
// gradient buckets) slows both, one that moves them after it speeds the backward pass up, one
// that removes a sleep leaves the others' share as it was.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/replay/graph.h"
#include "analysis/replay/simulate.h"

namespace tt::analysis::replay {

// Whether a node of this kind takes a core while it runs (waits, device work and markers
// do not).
bool TakesCpu(NodeKind k);

// The share of a core each running ask gets on a host of `cores` cores asked for `load`.
double CoreShare(double load, uint32_t cores);

// How fast a node of demand `demand` progresses where its asks get `share` of what they ask:
// (1 - demand) + demand x share.
inline double ShareRate(double demand, double share) { return 1 - demand + demand * share; }

// The GIL (Node::gil_demand): a node of a rank's thread that held it asks, of its demand, for
// gil_demand of the lock, shared by the rank's running asks as a core is (the lock is one);
// while it holds the lock it also runs, so that part goes at the lesser of its core's and the
// lock's shares: (1 - demand) + (demand - gil_demand) x cpu_share
// + gil_demand x min(cpu_share, gil_share).
double GilRate(double demand, double gil_demand, double cpu_share, double gil_share);

// Whether node n of g takes cores of a host while it runs (its kind does, and its resource has
// cores: Resource::cpus).
bool TakesCore(const Graph& g, const Node& n);

// Gives g its hosts and each of its CPU resources its cores (Resource::cpus): rank r's threads
// (resources with no device work) one on host_of_rank[r]; a communicator's transfers one on
// the host of each rank that joins them. Then sets each CPU node's demand where its CPU time
// was recorded (Node::cpu: that time over the CPU time it could have had, its host's share
// while it ran given the others' demands, at most 1), its GIL demand where the sampler saw its
// thread hold the GIL (Node::gil, as GilRate), and its duration to its work (see the top), from
// the measured times (Node::measured, Node::took).
void ShareCpus(Graph* g, std::vector<Host> hosts, const std::vector<uint32_t>& host_of_rank);

// Each op's time holding the GIL (Node::gil) from all the steps' graphs: each look is a sample
// (a read every few ms, ops shorter than that), so an op's own share is noise, but each kind of
// op's (a rank's nodes of one label) is not: every node of a label whose thread the sampler saw
// holding the GIL gets that label's GIL time over its measured time, times its own.
void SpreadGilByOp(std::vector<Graph*> graphs);

// The simulation with processor sharing (Simulate calls it for a graph with hosts).
Schedule SimulateSharingCpus(const Graph& g);

}  // namespace tt::analysis::replay
