// What the stages of the aggregation pass (aggregate.cc, host_pass.cc, device_pass.cc) share;
// private to them.
#pragma once
#include <set>
#include <vector>

#include "analysis/pass/aggregate.h"
#include "model/scan.h"

namespace tt::analysis {

// Interned ids of the argument keys the pass reads, per process (0 if never interned).
struct NameKeys {
  uint32_t correlation = 0, external = 0, bytes = 0, addr = 0, kind = 0, op = 0, grid = 0,
           block = 0, registers = 0, shared_static = 0, shared_dynamic = 0, domain = 0, module = 0;
  // An op's costs (format/keys.h): the keys, and the names of the two methods.
  uint32_t float_ops = 0, flops_method = 0, output_bytes = 0, input_bytes = 0, by_framework = 0,
           by_shape = 0;
  std::set<uint32_t> step_names;
};
NameKeys KeysOf(const model::Process& p, const std::vector<std::string>& step_names);

struct PassContext {
  const model::TraceModel& m;
  Needs needs;
  std::vector<NameKeys> keys;  // per process
  Windows windows;
  std::vector<LinkTables> links;  // per process, built after the host pass
  // Per track: whether another host track has the same (process, tid) (an imported stream).
  std::vector<char> shared_thread;
  const TrackRiders* riders = nullptr;  // visitors driven along the scans (aggregate.h)
  const CodeIndex* code = nullptr;      // the Python stacks, when the code view is asked for
};

// Scans track t with the pass's visitor v, and the track's rider, if any, along (one read).
template <typename V>
void ScanTrackAndRider(const PassContext& c, const model::Track& t, std::vector<Problem>* problems,
                       V& v) {
  size_t i = static_cast<size_t>(&t - c.m.tracks.data());
  TrackRider* r = c.riders && i < c.riders->size() ? (*c.riders)[i] : nullptr;
  if (!r) {
    model::ScanTrack(c.m, t, problems, v);
    return;
  }
  model::FanOut<V, TrackRider> both(v, *r);
  model::ScanTrack(c.m, t, problems, both);
}

// An argument as an integer (floats that an int64 holds convert), else dflt.
int64_t ArgInt(const model::ArgsView& a, uint32_t key, int64_t dflt);
// A string argument's name id, else 0.
uint32_t ArgStr(const model::ArgsView& a, uint32_t key);

}  // namespace tt::analysis
