// Replay's pieces of work per track (atoms.h).
#include "analysis/replay/atoms.h"

#include <algorithm>

#include "core/parallel.h"
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

// A thread of TensorFlow's input pipeline (tf.data names its threads tf_data_...): the ops it
// runs are the map functions' (a py_function's EagerPyFunc, under ExecutorState::Process), the
// pipeline's own work, which input=FACTOR scales and which frees the cores it took.
bool InputThread(std::string_view thread) { return thread.rfind("tf_data", 0) == 0; }

// Work that is one node with everything inside it.
bool Whole(Meaning m) {
  return model::IsOpLike(m) || m == Meaning::kCommunication || m == Meaning::kDevice;
}

// The bytes of the tensor an op's first input is ("[[512,512]]" and "[\"float\"]", as the Kineto
// importer keeps them); -1 when not given.
int64_t FirstInputBytes(std::string_view dims, std::string_view types) {
  size_t open = dims.find('[', 1), close = dims.find(']');
  if (dims.size() < 4 || dims[0] != '[' || open != 1 || close == std::string_view::npos) return -1;
  int64_t n = 1, v = -1;
  for (size_t i = 2; i <= close; ++i) {
    char c = dims[i];
    if (c >= '0' && c <= '9') {
      v = (v < 0 ? 0 : v * 10) + (c - '0');
      if (v > (int64_t{1} << 40)) return -1;
    } else if (v >= 0) {
      n *= v, v = -1;
    }
  }
  int64_t size = 4;  // float, int
  if (types.find("double") != types.npos || types.find("long") != types.npos) size = 8;
  if (types.find("Half") != types.npos || types.find("BFloat16") != types.npos) size = 2;
  return n * size;
}

class AtomScan {
 public:
  AtomScan(const model::Process& p, const std::set<uint32_t>& steps, TrackWork* out)
      : p_(p), steps_(steps), out_(out), corr_(model::KeyId(p, keys::kCorrelationId)) {
    auto ids = model::KeyIds(p, {keys::kSeq, keys::kFwdTid, keys::kInputDims, keys::kInputTypes});
    seq_ = ids[0], fwd_tid_ = ids[1], dims_ = ids[2], types_ = ids[3];
    auto tf = model::KeyIds(p, {keys::kOpName, keys::kTfInputs});
    op_name_ = tf[0], tf_inputs_ = tf[1];
    module_ = model::KeyId(p, keys::kModule);
    op_flops_ = model::KeyId(p, keys::kFloatOps);
    auto cost = model::KeyIds(p, {keys::kFloatOps, keys::kInputBytes, keys::kOutputBytes});
    flops_ = cost[0], in_bytes_ = cost[1], out_bytes_ = cost[2];
  }
  void OnBegin(const model::Slice& s) {
    bool inside = !open_.empty() && (open_.back().inside || open_.back().whole);
    if (!open_.empty()) open_.back().has_child = true;
    Meaning m = model::MeaningOfSlice(p_, s.category, s.name, s.args);
    bool step = m == Meaning::kStep || steps_.count(s.name);
    bool whole = !inside && !step && Whole(m);
    if (whole) whole_start_ = s.start, grad_bytes_ = -1, backward_seq_ = BackwardSeq(s);
    if (whole) float_ops_ = moved_bytes_ = -1;
    uint32_t in = kNoIndex;
    if (inside) {  // a slice inside an atom: the what-ifs that reach nested ops match it
      in = static_cast<uint32_t>(out_->inner.size());
      out_->inner.push_back({s.start, s.start, s.name, 0, open_.back().inner});
    }
    open_.push_back({inside, whole, false, step, m, in, static_cast<uint32_t>(out_->inner.size())});
  }
  void OnSlice(const model::Slice& s) {
    if (open_.empty()) return;
    Frame f = open_.back();
    open_.pop_back();
    if (s.unclosed) return;
    int64_t corr = corr_ && s.args.count ? model::ArgInt(s.args, corr_).value_or(-1) : -1;
    if (corr >= 0 && s.category == layout::Category::kRuntimeApi)
      out_->launches.push_back({s.start, corr});
    int64_t seq = seq_ && (f.inside || f.whole) ? Autograd(s) : -1;
    uint32_t module = module_ && s.args.count ? model::ArgStr(s.args, module_) : 0;
    uint32_t dims = dims_ && s.args.count ? model::ArgStr(s.args, dims_) : 0;
    int64_t flops = op_flops_ && s.args.count ? model::ArgInt(s.args, op_flops_).value_or(-1) : -1;
    if (f.inner != kNoIndex) {
      InnerSlice& in = out_->inner[f.inner];
      in.end = s.end, in.module = module, in.seq = seq, in.dims = dims, in.flops = flops;
    }
    if (f.inside || f.whole) AddCosts(s);
    if (f.inside || f.step) return;
    if (f.whole || !f.has_child) {
      NodeKind k = KindOf(f.m, p_.Name(s.name));
      out_->atoms.push_back({s.start, s.end, s.name, k, k == NodeKind::kDevice ? corr : -1,
                             f.whole ? backward_seq_ : -1, f.whole ? grad_bytes_ : -1});
      out_->atoms.back().module = module;
      out_->atoms.back().seq = f.whole ? seq : -1;
      out_->atoms.back().dims = dims, out_->atoms.back().flops = flops;
      if (f.whole)
        out_->atoms.back().float_ops = float_ops_, out_->atoms.back().moved_bytes = moved_bytes_;
      if (f.whole)
        out_->atoms.back().inner_begin = f.first_inner,
        out_->atoms.back().inner_end = static_cast<uint32_t>(out_->inner.size());
      if (f.whole && tf_inputs_ && s.args.count) {  // a process with saved graphs
        out_->atoms.back().tf_node = model::ArgStr(s.args, op_name_);
        out_->atoms.back().tf_inputs = model::ArgStr(s.args, tf_inputs_);
      }
    }
  }
  void OnPoint(const model::Point&) {}

 private:
  // A backward op (autograd's engine runs it): the sequence number of its forward op, which
  // the profiler records with the forward thread's id; -1 for anything else.
  int64_t BackwardSeq(const model::Slice& s) const {
    if (!seq_ || !s.args.count || model::ArgInt(s.args, fwd_tid_).value_or(0) <= 0) return -1;
    return model::ArgInt(s.args, seq_).value_or(-1);
  }
  // Inside the current atom: a forward op's sequence number (ops a backward op runs have
  // none), or a gradient accumulated into a parameter. Returns the forward op's sequence
  // number, -1 for anything else.
  int64_t Autograd(const model::Slice& s) {
    if (!s.args.count) return -1;
    int64_t forward = -1;
    if (backward_seq_ < 0 && model::ArgInt(s.args, fwd_tid_).value_or(0) == 0)
      if (auto seq = model::ArgInt(s.args, seq_)) {
        out_->forwards.push_back({*seq, whole_start_});
        forward = *seq;
      }
    if (p_.Name(s.name) != "torch::autograd::AccumulateGrad") return forward;
    int64_t b = FirstInputBytes(p_.Name(model::ArgStr(s.args, dims_)),
                                p_.Name(model::ArgStr(s.args, types_)));
    if (b >= 0) grad_bytes_ = std::max<int64_t>(grad_bytes_, 0) + b;
    return forward;
  }

  // A slice of the current atom (it or one inside it): its FLOPs and the bytes it read and
  // wrote, where given, added to the atom's (as the aggregation pass reads them).
  void AddCosts(const model::Slice& s) {
    if (!flops_ || !s.args.count) return;
    int64_t f = model::ArgInt(s.args, flops_).value_or(-1);
    if (f < 0) return;
    float_ops_ = std::max<int64_t>(float_ops_, 0) + f;
    int64_t in = in_bytes_ ? model::ArgInt(s.args, in_bytes_).value_or(-1) : -1;
    int64_t out = out_bytes_ ? model::ArgInt(s.args, out_bytes_).value_or(-1) : -1;
    if (in >= 0 && out >= 0) moved_bytes_ = std::max<int64_t>(moved_bytes_, 0) + in + out;
  }

  struct Frame {
    bool inside, whole, has_child, step;
    Meaning m;
    uint32_t inner;        // its index in out_->inner (a slice inside an atom), else kNoIndex
    uint32_t first_inner;  // out_->inner's size when it began (an atom's first inner slice)
  };
  const model::Process& p_;
  const std::set<uint32_t>& steps_;
  TrackWork* out_;
  uint32_t corr_, seq_ = 0, fwd_tid_ = 0, dims_ = 0, types_ = 0, op_name_ = 0, tf_inputs_ = 0;
  uint32_t op_flops_ = 0;  // keys::kFloatOps: a slice's own FLOPs (Atom::flops)
  uint32_t module_ = 0, flops_ = 0, in_bytes_ = 0, out_bytes_ = 0;
  int64_t float_ops_ = -1, moved_bytes_ = -1;  // the current atom's (Atom's)
  std::vector<Frame> open_;
  uint64_t whole_start_ = 0;  // the current atom's (an outermost op-like slice's) start
  int64_t backward_seq_ = -1, grad_bytes_ = -1;
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
    if (InputThread(t.name))
      for (Atom& a : atoms[i].atoms)
        if (a.kind == NodeKind::kOp || a.kind == NodeKind::kRuntime) a.kind = NodeKind::kInput;
    std::sort(atoms[i].atoms.begin(), atoms[i].atoms.end(), [](const Atom& a, const Atom& b) {
      return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    std::sort(atoms[i].launches.begin(), atoms[i].launches.end(),
              [](const Launch& a, const Launch& b) { return a.ts < b.ts; });
    std::sort(atoms[i].forwards.begin(), atoms[i].forwards.end(),
              [](const ForwardSeq& a, const ForwardSeq& b) {
                return a.seq != b.seq ? a.seq < b.seq : a.atom_start < b.atom_start;
              });
  });
  for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
  return atoms;
}

}  // namespace tt::analysis::replay
