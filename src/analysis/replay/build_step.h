// One step's graph from the ranks' atoms (private to build*.cc).
#pragma once
#include <string>
#include <vector>

#include "analysis/pass/code_index.h"
#include "analysis/replay/atoms.h"
#include "analysis/replay/build.h"

namespace tt::analysis::replay {

// A collective instance one rank ran in a step: its arrival and exit on that rank.
struct Arrival {
  uint64_t enter = 0, exit = 0;
  size_t instance = 0;  // index in StepInput::instances
  bool send = false;    // the sending end of a point-to-point instance
};

struct Instance {
  std::string name;   // "allreduce"
  std::string group;  // its communicator
  uint64_t last_enter = 0, first_exit = 0;
  size_t ranks = 0;    // arrivals expected
  int64_t bytes = -1;  // -1: not given
  // A send paired with its receive (comm's sendrecv): only the receiver waits for the transfer.
  bool p2p = false;
};

// A tensor sent from one process to another (TensorFlow's _Send and _Recv, p2p.h), on the
// trace clock.
struct PointToPoint {
  size_t sender = 0, receiver = 0;  // indices in the ranks
  std::string tensor;               // "edge_10_mul"
  uint64_t send_start = 0;          // the _Send began
  uint64_t recv_start = 0;          // the receive asked for it
  uint64_t recv_done = 0;           // it arrived (the receive's done callback began)
  int64_t bytes = -1;
};

struct RankInput {
  std::string label;
  bool participant = false;  // no steps of its own: `steps` are the ranks' windows (RankStep)
  const model::TraceModel* m = nullptr;
  size_t process = 0;
  std::vector<Step> steps;                        // its selected steps, in order
  const std::vector<TrackWork>* atoms = nullptr;  // by track of m
  std::vector<Arrival> arrivals;                  // sorted by enter
  // The Python stacks behind its ops (code_index.h; nullptr: none), and each of its stacks'
  // index in the job's LabelTable::stacks.
  const ProcessCode* code = nullptr;
  std::vector<uint32_t> stacks;
};

// The graph of the k-th selected step of every rank (each rank has more than k steps;
// participants last; `pairs` sorted by recv_start). Its labels go to `names` (shared by the
// job's graphs).
StepGraph BuildStep(const std::vector<RankInput>& ranks, const std::vector<Instance>& instances,
                    const std::vector<PointToPoint>& pairs, size_t k,
                    const std::shared_ptr<LabelTable>& names);

}  // namespace tt::analysis::replay
