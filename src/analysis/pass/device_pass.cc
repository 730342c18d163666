// The device half of the aggregation pass: one scan of each device track (kernels, copies and
// sets, communication), each activity linked to its launch and op (analysis/pass/correlate.h).
#include "analysis/pass/device_pass.h"

#include <algorithm>

#include "analysis/pass/pass_context.h"
#include "core/parallel.h"
#include "model/scan.h"

namespace tt::analysis {

using namespace layout;
using model::Point;
using model::Slice;
using model::Track;

namespace {

class DeviceVisitor {
 public:
  DeviceVisitor(const PassContext& c, const Track& t, TrackAgg* a)
      : c_(c),
        k_(c.keys[t.process]),
        w_(c.windows.empty() ? nullptr : &c.windows[t.process]),
        a_(a),
        process_(t.process) {}
  void OnBegin(const Slice&) {}
  void OnPoint(const Point&) { ++a_->events; }
  void OnSlice(const Slice& s) {
    ++a_->events;
    a_->first = std::min(a_->first, s.start);
    a_->last = std::max(a_->last, s.end);
    if (w_ && !w_->empty() && !InWindows(*w_, s.start)) return;
    a_->busy += s.Duration();
    switch (s.category) {
      case Category::kGpuKernel:
        OnKernel(s);
        break;
      case Category::kMemcpy:
      case Category::kMemset:
        OnCopy(s);
        break;
      case Category::kCommunication:
        if (c_.needs.intervals) a_->comm.push_back({s.start, s.end});
        break;
      default:
        break;
    }
    if (s.category == Category::kGpuKernel || s.category == Category::kMemcpy ||
        s.category == Category::kMemset)
      Link(s, s.Duration());
  }

 private:
  void OnKernel(const Slice& s) {
    Agg& g = a_->kernels.Get(s.name, c_.needs.dev_samples);
    g.incl.Add(s.Duration());
    g.self += s.Duration();
    if (g.grid.empty() && k_.grid) g.grid = Text(ArgStr(s.args, k_.grid));
    if (g.block.empty() && k_.block) g.block = Text(ArgStr(s.args, k_.block));
    if (g.registers < 0) g.registers = ArgInt(s.args, k_.registers, -1);
    if (g.shared_static < 0) g.shared_static = ArgInt(s.args, k_.shared_static, -1);
    if (g.shared_dynamic < 0) g.shared_dynamic = ArgInt(s.args, k_.shared_dynamic, -1);
    if (c_.needs.intervals) a_->device.push_back({s.start, s.end});
  }
  void OnCopy(const Slice& s) {
    std::string kind = "memset";
    if (s.category == Category::kMemcpy) {
      uint32_t kid = ArgStr(s.args, k_.kind);
      kind = kid ? Text(kid) : "memcpy";
    }
    auto [it, fresh] = a_->copies.try_emplace(kind);
    if (fresh) it->second.incl.KeepSamples(c_.needs.dev_samples);
    Agg& g = it->second;
    g.incl.Add(s.Duration());
    g.payload += static_cast<uint64_t>(std::max<int64_t>(0, ArgInt(s.args, k_.bytes, 0)));
    if (c_.needs.intervals) a_->copy.push_back({s.start, s.end});
  }
  // Device work -> launch (correlation id) -> op; or -> op directly (external id).
  void Link(const Slice& s, uint64_t d) {
    DeviceLink l = LinkDevice(c_.links[process_], IdsOf({k_.correlation, k_.external}, s.args));
    a_->activities++;
    if (l.launched) a_->linked_corr++;
    if (l.op_method == LinkMethod::kExternalId) a_->linked_ext++;
    if (l.op_method == LinkMethod::kNesting) a_->linked_nesting++;
    if (!l.launched && !l.op) a_->unlinked++;
    if (l.op) a_->accel_by_op[l.op] += d;
    if (s.category == Category::kGpuKernel) {
      uint64_t tag = l.op ? l.op : l.launched ? kTagApi | l.api : kTagNone;
      a_->kernel_by[{s.name, tag}]++;
    }
  }
  std::string Text(uint32_t id) const { return std::string(c_.m.processes[process_].Name(id)); }

  const PassContext& c_;
  const NameKeys& k_;
  const std::vector<Window>* w_;
  TrackAgg* a_;
  size_t process_;
};

}  // namespace

void ScanDeviceTracks(const PassContext& c, Aggregates* a, std::vector<Problem>* problems) {
  std::vector<std::vector<Problem>> prob(a->device.size());
  ParallelFor(a->device.size(), a->sel.threads, [&](size_t i) {
    const Track& t = c.m.tracks[a->device[i].track];
    DeviceVisitor v(c, t, &a->device[i]);
    ScanTrackAndRider(c, t, &prob[i], v);
  });
  for (auto& p : prob) problems->insert(problems->end(), p.begin(), p.end());
}

}  // namespace tt::analysis
