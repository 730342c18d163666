// Communication across ranks: every collective each rank ran, matched across ranks into
// instances, with each rank's arrival and wait, the straggler, the instance's bytes and its
// algorithm and bus bandwidth (as nccl-tests define them), and totals per collective and per
// rank. A rank is a traced process that ran collectives (its launcher's rank where the trace
// holds one); several traces (one recording per rank) are read as one job.
//
// Collection (comm_collect.h) reads the events that carry a `collective` argument, and the
// overlap with compute is measured in comm_overlap.h; matching (comm.cc) works on plain lists,
// so it is tested without a trace.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/comm/comm_collect.h"
#include "analysis/comm/comm_overlap.h"
#include "analysis/job/steps.h"
#include "analysis/pass/intervals.h"
#include "model/model.h"
#include "model/scan.h"

namespace tt::analysis {

// One collective as one rank ran it.
struct CommEvent {
  uint64_t start = 0, end = 0;  // trace clock (ns)
  std::string collective;       // normalised: "allreduce", "allgather", "broadcast"...
  std::string group;            // process group or communicator ("" when the event names none)
  int64_t bytes = -1;           // -1: not given
  int64_t nranks = -1;          // the group's size, when the event gives it
  int64_t key = -1;             // the framework's instance key (-1: none)
  int64_t peer = -1;            // a send's destination, a receive's source (-1: not given)
  uint64_t call = 0;            // a send's call (c10d::send) around its start (0: none)
  std::string name;             // the event's own name ("gloo:all_reduce")
  std::string op;               // the framework op's name, where the event gives one
  std::string algorithm;        // NCCL's algorithm ("Ring"), where the event gives it
  std::string protocol;         // NCCL's protocol ("Simple"), where the event gives it
  size_t track = SIZE_MAX;      // the track it ran on (index in its trace's model)
  int64_t device = -1;          // an XLA op's device ordinal (-1: not given)
};

// One step of a rank: the time its collectives took within the step (their union), and how
// much of it compute ran alongside on the process's other threads and device streams
// (compute ops, oneDNN primitives, GPU kernels): overlapped, else exposed (the step waited).
struct CommStep {
  int64_t number = -1;
  uint64_t start = 0, end = 0;                     // on the job's clock
  uint64_t calls = 0;                              // collectives that started in it
  uint64_t comm = 0, overlapped = 0, exposed = 0;  // ns; exposed = comm - overlapped
};

// A process that ran collectives, with what it ran in start order.
struct CommRank {
  int64_t rank = -1;  // its launcher's rank, else the rank its events give; -1: neither
  int64_t pid = 0;
  std::string host, trace;      // trace: the directory it was read from
  std::string clock;            // its clock's boot id: times compare only within one boot
  int64_t realtime_offset = 0;  // CLOCK_REALTIME - its clock, as recorded at its start
  // Which events stand for its collectives: "nccl" (our NCCL profiler plugin's, nccl.AllReduce:
  // NCCL's own sequence numbers match them), "backend" (the backend's own ranges, gloo:...,
  // nccl:...), "collective" (other communication ranges: record_param_comms, NCCL's NVTX
  // ranges), "call" (the framework's op that issued it, c10d::allreduce_) or "xla" (XLA's
  // collective instructions, as JAX's profiler records them), the first the process has, so
  // that no collective counts twice.
  std::string source;
  std::vector<CommEvent> events;
  // With overlap measured (CollectCollectives' `overlap`): the same over its whole run, and
  // per step (its steps, in order; none where it has no steps).
  bool overlap_measured = false;
  uint64_t comm = 0, overlapped = 0;
  std::vector<CommStep> steps;
  // One device of a process whose XLA program ran on several (JAX's devices of one host,
  // each a participant of its collectives): its ordinal; -1 for the whole process.
  int64_t device = -1;
  std::string Label() const;  // "rank 1", else "pid 1234"; " device 0" after it for a device
};

// One rank's part in an instance.
struct CommArrival {
  size_t rank = 0;  // index in CommView::ranks
  uint64_t enter = 0, exit = 0;
  uint64_t wait = 0;  // from its entry until the last rank entered (at most until its exit)
  bool send = false;  // the sending end of a sendrecv
  uint64_t call = 0;  // a send's call start, where before its entry (0: none)
};

struct CommInstance {
  std::string collective, group;
  uint64_t seq = 0;            // its order among the group's collectives of this kind (from 0)
  int64_t key = -1;            // the instance key it was matched by (-1: by sequence)
  int64_t src = -1, dst = -1;  // a send paired with its receive ("sendrecv"): the two ranks
  int64_t bytes = -1;          // the largest any rank gave (-1: none gave any)
  int64_t nranks = 0;          // ranks expected: the group's size where given, else those seen
  std::vector<CommArrival> arrivals;  // one per rank that ran it, in rank order
  uint64_t first_enter = 0, last_enter = 0, last_exit = 0;
  uint64_t skew = 0;              // last_enter - first_enter
  uint64_t duration = 0;          // last_exit - last_enter: the collective itself, once all arrived
  uint64_t wait = 0;              // the ranks' waits added
  size_t straggler = 0;           // index in CommView::ranks of the last rank to enter
  double algbw = -1, busbw = -1;  // bytes/s; -1 when unknown (no bytes, one rank, no time)
  bool matched = false;           // seen on every rank expected (and on at least two)
  bool bytes_differ = false;      // the ranks gave different byte counts
  std::string algorithm;          // NCCL's algorithm, as the first rank that gave one ("": none)
  std::string protocol;           // NCCL's protocol, likewise
};

// Per collective kind.
struct CommCollective {
  std::string collective;
  uint64_t instances = 0, unmatched = 0;
  std::map<size_t, uint64_t> calls;  // rank index -> its events of this kind
  int64_t bytes = 0;                 // the instances' bytes added (once per instance)
  uint64_t time = 0;                 // the ranks' event durations added
  uint64_t wait = 0;                 // the ranks' waits added
  double busbw = -1;                 // the matched instances' bytes over their durations
};

// Per rank.
struct CommRankTotals {
  uint64_t calls = 0, time = 0, wait = 0, straggler = 0;  // straggler: instances it was last in
  int64_t bytes = 0;
  // Its collectives' union over its run, and the part compute overlapped (CommRank; -1: not
  // measured).
  int64_t comm = -1, overlapped = -1, exposed = -1;
};

// One recording's clock (the clock of its ranks' times) as put on the job's timeline: from the
// recorded CLOCK_REALTIME offsets (none needed between recordings of one boot, which share
// CLOCK_MONOTONIC), then refined by causality against the first rank's recording: no rank
// leaves an all-reduce, all-gather, reduce-scatter, all-to-all or barrier before every rank
// entered it. Where the recorded offsets break that, the offset becomes the middle of the
// window that causality allows.
struct CommClock {
  std::string trace, host, clock;   // clock: boot id
  std::vector<size_t> ranks;        // indices in CommView::ranks
  int64_t recorded_ns = 0;          // offset from the recorded CLOCK_REALTIME offsets
  int64_t offset_ns = 0;            // applied: added to its ranks' times
  bool bounded = false;             // collectives shared with the reference bound it
  int64_t low_ns = 0, high_ns = 0;  // the offsets causality allows (when bounded)
  int64_t uncertainty_ns = -1;      // the most the applied offset can be off (-1: unknown)
  uint64_t constraints = 0;         // instances shared with the reference that bound it
  // "reference", "recorded" (the recorded offsets agree with causality), "causality" (moved),
  // "inconsistent" (no offset satisfies every instance: recorded kept), "unbounded" (no
  // collective shared with the reference)
  std::string method;
};

struct CommView {
  std::vector<CommRank> ranks;              // by rank, then pid
  std::vector<CommInstance> instances;      // by first entry
  std::vector<CommCollective> collectives;  // by time, most first
  std::vector<CommRankTotals> totals;       // like ranks
  std::vector<CommClock> clocks;            // one per recording (and boot), the reference first
  uint64_t matched = 0, unmatched = 0;
  std::vector<std::string> notes;  // what could not be matched, and why
  // The ranks of the launcher's world that ran no collective, or died before the others' last
  // (comm_missing.h), one sentence each (also in notes).
  std::vector<std::string> missing;
};

// "all_reduce", "AllReduce", "allreduce_", "_allgather_base" -> "allreduce", "allgather".
std::string NormaliseCollective(std::string_view name);

// An XLA instruction's collective, from its name: the opcode's ("all-reduce.3",
// "all-gather-start.1", "reduce-scatter", "all-to-all", "collective-permute") or the JAX
// primitive's that names it ("psum_invariant.7", "psum", "pmax", "all_gather.3",
// "psum_scatter", "ppermute"), normalised as NormaliseCollective ("allreduce", ...,
// "collectivepermute"); "" for any other instruction (and for the "-done" half of an
// asynchronous pair).
std::string XlaCollective(std::string_view name);

// nccl-tests' bus bandwidth factor of a collective on n ranks (2(n-1)/n for allreduce, (n-1)/n
// for allgather, reducescatter and alltoall, 1 for broadcast, reduce, send and recv); 0 for
// one it does not define (barrier).
double BusFactor(const std::string& collective, int64_t n);

// Puts every recording's ranks on the first rank's clock (CommClock): shifts the instances'
// arrivals and the ranks' events by the offsets it applies, before the instances are finished.
// Adds a note where causality cannot be met.
std::vector<CommClock> AlignClocks(std::vector<CommRank>* ranks,
                                   std::vector<CommInstance>* instances,
                                   std::vector<std::string>* notes);

// Matches the ranks' events into instances and adds everything up. Ranks are sorted here.
CommView MatchCollectives(std::vector<CommRank> ranks);

// A collective's short name for people: "allreduce #2", "allgather key 7 of group 1".
// A sendrecv's direction, " 0->1" (its ranks); "" for a collective.
std::string CommDirection(const CommInstance& in);
std::string CommInstanceName(const CommInstance& in);

}  // namespace tt::analysis
