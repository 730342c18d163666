// The host half of the aggregation pass: one scan of each host track (ops, API calls,
// primitives, allocations, launches and external ids, step intervals), then the primitives and
// launches that found no op on their own track are linked to an op of another track of the
// same thread.
#include "analysis/pass/host_pass.h"

#include <algorithm>
#include <map>
#include <optional>

#include "analysis/pass/allocations.h"
#include "analysis/pass/op_sites.h"
#include "analysis/pass/pass_context.h"
#include "analysis/pass/primitives.h"
#include "core/parallel.h"
#include "format/keys.h"
#include "model/open_slices.h"
#include "model/scan.h"

namespace tt::analysis {

using namespace layout;
using model::Point;
using model::Slice;
using model::Track;

namespace {

bool IsStep(const Slice& s, const NameKeys& k) {
  return s.category == Category::kStep || k.step_names.count(s.name);
}

// Links the launches that found no op on their own track to the innermost framework op of any
// track of the same (process, tid): the XSpace import writes TensorFlow's ops of thread T into
// an imported stream of T, the runtime writes T's launches into T's own stream. Then the
// primitives (primitives.cc), which need the same ops.
void LinkAcrossTracks(const PassContext& c, std::vector<TrackAgg>* hagg) {
  std::map<std::pair<size_t, uint64_t>, ThreadOps> threads;
  for (auto& a : *hagg) {
    if (a.op_spans.empty()) continue;
    const Track& t = c.m.tracks[a.track];
    threads[{t.process, t.id}].Take(&a.op_spans);
  }
  for (auto& [key, ops] : threads) ops.Build();
  for (auto& a : *hagg) {
    if (a.pending_launches.empty()) continue;
    const Track& t = c.m.tracks[a.track];
    auto it = threads.find({t.process, t.id});
    auto op_of = [&](const Pending& p) -> uint32_t {
      return it == threads.end() ? 0 : it->second.Innermost(p.start, p.end);
    };
    for (const Pending& p : a.pending_launches)
      a.launches.push_back({p.corr, uint64_t{p.name} << 32 | op_of(p)});
    std::vector<Pending>().swap(a.pending_launches);
  }
  ResolvePrimitives(c, threads, hagg);
}

class HostVisitor {
 public:
  HostVisitor(const PassContext& c, const Track& t, TrackAgg* a)
      : c_(c),
        k_(c.keys[t.process]),
        w_(c.windows.empty() ? nullptr : &c.windows[t.process]),
        a_(a),
        t_(t),
        proc_(c.m.processes[t.process]),
        shared_(c.shared_thread[static_cast<size_t>(&t - c.m.tracks.data())]) {
    if (c.code) sites_.emplace(&c.code->processes[t.process], proc_, t.id);
  }
  // Every slice opens here before it closes in OnSlice (complete ones right before).
  void OnBegin(const Slice& s) {
    if (s.category == Category::kFrameworkOp)  // the eager ops around it run a graph
      for (size_t i = 0; i < open_.size(); ++i)
        open_extra_[i].holds_op |= open_.frames()[i].meaning == model::Meaning::kEagerOp;
    // Busy time is the outermost slices' below the steps: a step marker (Kineto's
    // ProfilerStep#N around every op of the iteration) is not work of its own.
    bool busy_root = !IsStep(s, k_) && busy_open_++ == 0;
    open_.Push(s);
    open_extra_.push_back({false, busy_root});
    if (sites_) sites_->Begin(s);
  }
  void OnThreadName(std::string_view n) { a_->thread_name = std::string(n); }
  void OnSlice(const Slice& s) {
    if (sites_) sites_->End(s);
    Visit(s);
    if (!code_pending_.empty() && sites_->Flushes()) FlushCode(s);
  }
  void OnPoint(const Point& p) {
    Touch(p.ts, p.ts);
    if (!c_.needs.op_samples || p.category != Category::kAllocation || p.counter) return;
    int64_t bytes = ArgInt(p.args, k_.bytes, 0);
    uint64_t addr = static_cast<uint64_t>(ArgInt(p.args, k_.addr, 0));
    // The op open on the thread (its full "node:Type" name), as the memory view takes it; the
    // event's "op" argument (TensorFlow's node name, without the type) only when none is open.
    uint32_t op = p.op ? p.op : ArgStr(p.args, k_.op);
    bool is_free = keys::IsFreeEvent(c_.m.processes[t_.process].Name(p.name));
    a_->allocs.push_back({p.ts, addr, is_free ? 0 : bytes, op});
  }

 private:
  void Visit(const Slice& s) {
    Touch(s.start, s.end);
    bool outermost_op = false;
    model::Meaning meaning = model::Meaning::kAnnotation;
    uint64_t op_self = CloseOpen(s, &outermost_op, &meaning);
    if (IsStep(s, k_)) return;  // steps are found by FindSteps
    if (closed_busy_root_) a_->busy += s.Duration();
    if (shared_ && s.category == Category::kFrameworkOp) a_->op_spans.Add(s.start, s.end, s.name);
    if (w_ && !w_->empty() && !InWindows(*w_, s.start)) return;
    if (c_.needs.intervals) AddInterval(s, meaning, outermost_op);
    switch (s.category) {
      case Category::kFrameworkOp:
      case Category::kUser:
        if (meaning == model::Meaning::kOp || meaning == model::Meaning::kAnnotation)
          OnOp(s, op_self);
        else
          OnRuntime(s, meaning);
        break;
      case Category::kRuntimeApi:
        OnApi(s);
        break;
      case Category::kPrimitive:
        a_->prim_spans.push_back(
            {s.start, s.end, s.Self(), s.name, s.op, ArgStr(s.args, k_.domain)});
        break;
      case Category::kCommunication:  // NCCL's ranges, a backend's (gloo) collectives
        OnRuntime(s, meaning);
        break;
      default:
        break;
    }
  }

  // The step breakdown's intervals, each kind's outermost slices only (unions are taken later):
  // ops at any depth (inside runtime ranges), input waits, compilation, runtime ranges.
  void AddInterval(const Slice& s, model::Meaning m, bool outermost_op) {
    using model::Meaning;
    bool under_step = s.parent_category == Category::kStep || k_.step_names.count(s.parent);
    Meaning parent = s.depth ? proc_.MeaningOf(s.parent_category, s.parent) : Meaning::kStep;
    Interval iv{s.start, s.end};
    if (m == Meaning::kInput && model::IsInputWait(proc_.Name(s.name)))
      a_->input.push_back(iv);
    else if (m == Meaning::kCompile && parent != Meaning::kCompile)
      a_->compile.push_back(iv);
    else if ((m == Meaning::kRuntime || m == Meaning::kEagerOp) && parent != Meaning::kRuntime &&
             parent != Meaning::kEagerOp)
      a_->runtime_iv.push_back(iv);
    if ((outermost_op && m != Meaning::kInput) ||
        ((s.depth == 0 || under_step) &&
         (s.category == Category::kPython || s.category == Category::kPrimitive)))
      a_->host.push_back(iv);
  }
  // The slice's own time as an op (model/open_slices.h's rule). *meaning: the slice's, as
  // decided when it opened.
  uint64_t CloseOpen(const Slice& s, bool* outermost_op, model::Meaning* meaning) {
    if (open_.empty()) {
      closed_holds_op_ = false;
      closed_busy_root_ = s.depth == 0 && !IsStep(s, k_);
      *meaning = open_.MeaningIn(s);
      return s.Self();
    }
    closed_holds_op_ = open_extra_.back().holds_op;
    closed_busy_root_ = open_extra_.back().busy_root;
    open_extra_.pop_back();
    if (!IsStep(s, k_) && busy_open_ > 0) --busy_open_;
    model::OpenSlices::Frame o = open_.Pop(s);
    *meaning = o.meaning;
    *outermost_op = o.op_like && o.ancestor < 0;
    return model::OpenSlices::OpSelf(o, s);
  }
  void OnOp(const Slice& s, uint64_t self) {
    Agg& g = a_->ops.Get(s.name, c_.needs.op_samples);
    g.incl.Add(s.Duration());
    g.self += self;
    g.cpu += s.Duration();
    OpCosts costs = CostsOf(s);
    g.costs.Merge(costs);
    if (costs.flops_known && c_.needs.intervals)
      a_->flops.push_back({s.start, costs.float_ops, costs.methods});
    if (c_.code) code_pending_.push_back(self);
    if (int64_t ext = ArgInt(s.args, k_.external, -1); ext >= 0)
      a_->externals.push_back({static_cast<uint64_t>(ext), s.name});
    if (c_.needs.scopes) {
      uint64_t key = uint64_t{k_.module ? ArgStr(s.args, k_.module) : 0} << 32 | s.name;
      auto [it, fresh] = a_->scoped.try_emplace(key);
      if (fresh) it->second.incl.KeepSamples(c_.needs.op_samples);
      it->second.incl.Add(s.Duration());
      it->second.self += self;
      it->second.cpu += s.Duration();
      it->second.costs.Merge(costs);
    }
  }
  // One execution's FLOPs and output bytes, where the importer found them.
  OpCosts CostsOf(const Slice& s) const {
    OpCosts c;
    if (!k_.float_ops && !k_.output_bytes) return c;
    if (int64_t f = ArgInt(s.args, k_.float_ops, -1); f >= 0) {
      c.float_ops = static_cast<uint64_t>(f);
      c.flops_known = 1;
      uint32_t m = ArgStr(s.args, k_.flops_method);
      c.methods = m && m == k_.by_framework ? kFlopsByFramework : kFlopsByShape;
    }
    if (int64_t b = ArgInt(s.args, k_.output_bytes, -1); b >= 0) {
      c.output_bytes = static_cast<uint64_t>(b);
      c.output_known = 1;
      int64_t in = ArgInt(s.args, k_.input_bytes, -1);
      if (c.flops_known && in >= 0 && in + b > 0) {
        c.moved_flops = c.float_ops;
        c.moved_bytes = static_cast<uint64_t>(in + b);
      }
    }
    return c;
  }
  void OnRuntime(const Slice& s, model::Meaning meaning) {
    if (sites_ && sites_->stacks() && sites_->Flushes()) CodePhase(s, meaning);
    Agg& g = a_->runtime.Get(s.name, c_.needs.runtime_samples);
    g.meaning = meaning;
    g.incl.Add(s.Duration());
    g.self += s.Self();
    g.cpu += s.Duration();
    if (meaning == model::Meaning::kCommunication && c_.needs.intervals)
      a_->comm.push_back({s.start, s.end});
  }
  void OnApi(const Slice& s) {
    Agg& g = a_->apis.Get(s.name, c_.needs.api_samples);
    g.incl.Add(s.Duration());
    g.self += s.Self();
    g.cpu += s.Duration();
    int64_t corr = ArgInt(s.args, k_.correlation, -1);
    if (corr < 0) return;
    if (!s.op && shared_)
      a_->pending_launches.push_back({s.start, s.end, 0, s.name, static_cast<uint64_t>(corr)});
    else
      a_->launches.push_back({static_cast<uint64_t>(corr), uint64_t{s.name} << 32 | s.op});
  }
  // The code view: the ops closed since the last flush go to the stack op_sites.h gives them.
  void FlushCode(const Slice& outer) {
    OpSites::Site site = sites_->Of(outer);
    Summary* sum = site.none            ? nullptr
                   : site.exact.empty() ? &a_->code[site.stack]
                                        : &a_->code_exact[site.exact];
    if (sum && sum->count() == 0) sum->KeepSamples(false);
    for (uint64_t self : code_pending_)
      if (sum) sum->Add(self);
    code_pending_.clear();
  }
  // The code view: a wait for input or a compilation outside any framework op (the outermost
  // of its kind) goes, whole, to the stack of its thread then, as a phase under that stack;
  // compilations as intervals (TrackAgg::code_compile). An eager op is op time.
  void CodePhase(const Slice& s, model::Meaning meaning) {
    using model::Meaning;
    Meaning parent = s.depth ? proc_.MeaningOf(s.parent_category, s.parent) : Meaning::kStep;
    // A compilation inside another (graph building nested through runtime ranges) is in it;
    // so is an eager op run while tracing (a layer's variables made as its function is traced).
    bool in_compile = !open_.empty() && open_.back().in_compile;
    if (meaning == Meaning::kEagerOp && parent != Meaning::kEagerOp) {
      if (!in_compile) CodeEagerOp(s);
      return;
    }
    uint32_t stack = kNoStack;
    if (meaning == Meaning::kCompile && !in_compile) {
      // The line that asked for it: the last stack sampled before it began (an interval from
      // 0 to its start takes that sample whole); inside, the sampler sees the tracing of
      // whichever function was being traced then.
      stack = sites_->stacks()->Of(s.name, t_.id, 0, s.start);
      a_->code_compile.push_back({s.start, s.end, stack});
      return;
    }
    if (meaning != Meaning::kInput || parent == Meaning::kInput) return;
    // A wait for input goes to the line that waited; the input pipeline's own work (a
    // DataLoader worker's fetch) to the line its thread's samples were in (the Dataset's
    // __getitem__), where its thread has Python samples.
    if (!model::IsInputWait(proc_.Name(s.name))) {
      for (const auto& [at, ns] : sites_->stacks()->Split(t_.id, s.start, s.end))
        AddPhase(at, "(input work)", ns);
      return;
    }
    AddPhase(sites_->stacks()->Of(s.name, t_.id, s.start, s.end), "(input wait)", s.Duration());
  }
  void AddPhase(uint32_t stack, const char* phase, uint64_t ns) {
    Summary& sum = a_->code_phase[{stack, phase}];
    if (sum.count() == 0) sum.KeepSamples(false);
    sum.Add(ns);
  }
  // The code view: an eager op (TensorFlow's dispatch of one op, whose kernel runs inside it)
  // is the op time of the line that called it, whole: eager TensorFlow writes no op event, so
  // without it an eager program's code view would be empty. Not a tf.function's call
  // ("EagerLocalExecute: __inference_f_12"), nor one that ran framework ops on its thread: the
  // graph's ops, on whatever thread, are counted themselves.
  void CodeEagerOp(const Slice& s) {
    if (closed_holds_op_ || model::OpTypeOf(proc_.Name(s.name)).starts_with("__inference_")) return;
    Summary& sum = a_->code[sites_->stacks()->Of(s.name, t_.id, s.start, s.end)];
    if (sum.count() == 0) sum.KeepSamples(false);
    sum.Add(s.Duration());
  }
  void Touch(uint64_t a, uint64_t b) {
    ++a_->events;
    a_->first = std::min(a_->first, a);
    a_->last = std::max(a_->last, b);
  }
  const PassContext& c_;
  const NameKeys& k_;
  const std::vector<Window>* w_;
  TrackAgg* a_;
  const Track& t_;
  const model::Process& proc_;
  bool shared_;
  std::optional<OpSites> sites_;        // the code view's attribution (when asked for)
  std::vector<uint64_t> code_pending_;  // self times of ops inside the open framework op
  struct OpenExtra {                    // beside each of open_'s frames
    bool holds_op;   // an eager op that ran a framework op (a graph function's call)
    bool busy_root;  // not a step, and no slice around it but steps
  };
  bool closed_holds_op_ = false;   // of the slice CloseOpen closed last
  bool closed_busy_root_ = false;  // of the slice CloseOpen closed last
  size_t busy_open_ = 0;           // open slices that are not steps
  model::OpenSlices open_{proc_};
  std::vector<OpenExtra> open_extra_;
};

}  // namespace

void ScanHostTracks(const PassContext& c, Aggregates* a, std::vector<Problem>* problems) {
  std::vector<std::vector<Problem>> prob(a->host.size());
  ParallelFor(a->host.size(), a->sel.threads, [&](size_t i) {
    const Track& t = c.m.tracks[a->host[i].track];
    a->host[i].thread_name = t.name;
    HostVisitor v(c, t, &a->host[i]);
    ScanTrackAndRider(c, t, &prob[i], v);
  });
  LinkAcrossTracks(c, &a->host);
  for (auto& p : prob) problems->insert(problems->end(), p.begin(), p.end());
}

}  // namespace tt::analysis
