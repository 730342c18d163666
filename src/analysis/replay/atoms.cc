// Replay's pieces of work per track (atoms.h).
#include "analysis/replay/atoms.h"

#include <algorithm>

#include "analysis/parallel.h"
#include "format/keys.h"
#include "model/args.h"
#include "model/scan.h"

namespace tt::analysis::replay {

using model::Meaning;

namespace {

NodeKind KindOf(Meaning m, std::string_view name) {
  switch (m) {
    case Meaning::kOp:
    case Meaning::kAnnotation:
      return NodeKind::kOp;
    case Meaning::kInput:
      return model::IsInputWait(name) ? NodeKind::kInputWait : NodeKind::kInput;
    case Meaning::kCommunication:
      return NodeKind::kComm;
    case Meaning::kDevice:
      return NodeKind::kDevice;
    default:
      return NodeKind::kRuntime;
  }
}

// Work that is one node with everything inside it.
bool Whole(Meaning m) {
  return model::IsOpLike(m) || m == Meaning::kCommunication || m == Meaning::kDevice;
}

class AtomScan {
 public:
  AtomScan(const model::Process& p, const std::set<uint32_t>& steps, TrackWork* out)
      : p_(p), steps_(steps), out_(out), corr_(model::KeyId(p, keys::kCorrelationId)) {}
  void OnBegin(const model::Slice& s) {
    bool inside = !open_.empty() && (open_.back().inside || open_.back().whole);
    if (!open_.empty()) open_.back().has_child = true;
    Meaning m = model::MeaningOfSlice(p_, s.category, s.name, s.args);
    bool step = m == Meaning::kStep || steps_.count(s.name);
    open_.push_back({inside, !inside && !step && Whole(m), false, step, m});
  }
  void OnSlice(const model::Slice& s) {
    if (open_.empty()) return;
    Frame f = open_.back();
    open_.pop_back();
    if (s.unclosed) return;
    int64_t corr = corr_ && s.args.count ? model::ArgInt(s.args, corr_).value_or(-1) : -1;
    if (corr >= 0 && s.category == layout::Category::kRuntimeApi)
      out_->launches.push_back({s.start, corr});
    if (f.inside || f.step) return;
    if (f.whole || !f.has_child) {
      NodeKind k = KindOf(f.m, p_.Name(s.name));
      out_->atoms.push_back({s.start, s.end, s.name, k, k == NodeKind::kDevice ? corr : -1});
    }
  }
  void OnPoint(const model::Point&) {}

 private:
  struct Frame {
    bool inside, whole, has_child, step;
    Meaning m;
  };
  const model::Process& p_;
  const std::set<uint32_t>& steps_;
  TrackWork* out_;
  uint32_t corr_;
  std::vector<Frame> open_;
};

}  // namespace

std::vector<TrackWork> CollectAtoms(const model::TraceModel& m, const std::vector<bool>& wanted,
                                    const std::vector<std::set<uint32_t>>& step_names,
                                    unsigned threads, std::vector<Problem>* problems) {
  std::vector<TrackWork> atoms(m.tracks.size());
  std::vector<std::vector<Problem>> probs(m.tracks.size());
  ParallelFor(m.tracks.size(), DefaultThreads(threads), [&](size_t i) {
    const model::Track& t = m.tracks[i];
    if (!wanted[t.process]) return;
    AtomScan scan(m.processes[t.process], step_names[t.process], &atoms[i]);
    model::ScanTrack(m, t, &probs[i], scan);
    std::sort(atoms[i].atoms.begin(), atoms[i].atoms.end(), [](const Atom& a, const Atom& b) {
      return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    std::sort(atoms[i].launches.begin(), atoms[i].launches.end(),
              [](const Launch& a, const Launch& b) { return a.ts < b.ts; });
  });
  for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
  return atoms;
}

}  // namespace tt::analysis::replay
