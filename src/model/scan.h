// Scanning one track: raw events become slices (begin/end pairs matched on the thread's stack,
// and complete events), instants and counters, delivered in stream order to a visitor. Memory
// is the open stack only.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "format/reader.h"
#include "model/model.h"

namespace tt::model {

// An event's arguments where the decoder left them (self-described, or an event class's
// values with its `shape`; see ArgCursor).
struct ArgsView {
  const uint8_t* data = nullptr;
  uint8_t count = 0;
  const uint8_t* shape = nullptr;
  static ArgsView Of(const RawEvent& e) { return {e.args, e.nargs, e.shape}; }
  ArgCursor Cursor() const { return {data, shape}; }
  // The first argument named `key` (an interned id), if any.
  bool Find(uint32_t key, Arg* out) const;
};

struct Slice {
  uint64_t start = 0, end = 0;
  uint32_t name = 0;
  layout::Category category = layout::Category::kUser;
  uint16_t depth = 0;     // 0: top level on its track
  uint64_t child_ns = 0;  // time inside direct children (so self = end - start - child_ns)
  uint32_t parent = 0;    // name of the innermost enclosing slice (0: none)
  layout::Category parent_category = layout::Category::kUser;
  uint32_t op = 0;  // innermost enclosing op-like slice (model/meaning.h; 0: none)
  ArgsView args;
  bool unclosed = false;  // still open at the end of the stream (closed there)
  uint64_t Duration() const { return end - start; }
  uint64_t Self() const { return end - start > child_ns ? end - start - child_ns : 0; }
};

struct Point {  // an instant or a counter sample
  uint64_t ts = 0;
  uint32_t name = 0;
  layout::Category category = layout::Category::kUser;
  double value = 0;  // counters
  uint32_t op = 0;   // innermost enclosing op-like slice (model/meaning.h)
  uint16_t depth = 0;
  ArgsView args;
  bool counter = false;
};

// One end of a flow (an arrow between two slices, e.g. a forward op to its backward node): it
// binds to the innermost slice open at `ts` on its track. Ids are per process.
struct Flow {
  uint64_t ts = 0;
  uint64_t id = 0;
  layout::FlowPhase phase = layout::FlowPhase::kOut;
};

// A slice's meaning: its name's (Process::MeaningOf), but a tf.function's call (the TraceMe
// TensorFlow writes around it, named after the Python function, with a tf_function_call
// argument) is runtime: its ops are the compute, xprof counts no op for it.
inline Meaning MeaningOfSlice(const Process& p, layout::Category c, uint32_t name,
                              const ArgsView& args) {
  Meaning m = p.MeaningOf(c, name);
  Arg a;
  if (m == Meaning::kAnnotation && c == layout::Category::kUser && p.tf_function_key &&
      args.count && args.Find(p.tf_function_key, &a))
    return Meaning::kRuntime;
  return m;
}

// Visitor: OnSlice(const Slice&) is called when a slice ends (children before parents);
// OnPoint(const Point&) for instants and counters; OnBegin(const Slice&) when a slice opens
// (its end is not known yet); optionally OnThreadName(std::string_view) and OnFlow(const Flow&).
template <typename V>
void ScanTrack(const TraceModel& m, const Track& t, std::vector<Problem>* problems, V& visit);

// Several visitors driven by one scan: each is told every event, in order, first visitor first
// (OnThreadName only those that have it). So one read of a track serves several consumers.
template <typename... V>
struct FanOut {
  std::tuple<V&...> visitors;
  explicit FanOut(V&... v) : visitors(v...) {}
  void OnBegin(const Slice& s) {
    std::apply([&](auto&... v) { (v.OnBegin(s), ...); }, visitors);
  }
  void OnSlice(const Slice& s) {
    std::apply([&](auto&... v) { (v.OnSlice(s), ...); }, visitors);
  }
  void OnPoint(const Point& p) {
    std::apply([&](auto&... v) { (v.OnPoint(p), ...); }, visitors);
  }
  void OnFlow(const Flow& f) {
    auto one = [&](auto& v) {
      if constexpr (requires { v.OnFlow(f); }) v.OnFlow(f);
    };
    std::apply([&](auto&... v) { (one(v), ...); }, visitors);
  }
  void OnThreadName(std::string_view n) {
    auto one = [&](auto& v) {
      if constexpr (requires { v.OnThreadName(n); }) v.OnThreadName(n);
    };
    std::apply([&](auto&... v) { (one(v), ...); }, visitors);
  }
};

inline bool IsOpCategory(layout::Category c) {
  return c == layout::Category::kFrameworkOp || c == layout::Category::kUser;
}

namespace scan_detail {

// The open slices of one track's scan (a thread's slices nest) and what each event makes of
// them, told to the visitor.
template <typename V>
class SliceStack {
 public:
  SliceStack(const Process& proc, V& visit) : proc_(proc), visit_(visit) {}

  // One event, its time already aligned.
  void Add(const RawEvent& ev) {
    using namespace layout;
    switch (ev.id) {
      case kSliceBegin:
      case kSliceBeginArgs:
        Begin(ev);
        break;
      case kSliceEnd:
        if (!stack_.empty()) Close(ev.ts, false);
        break;
      case kComplete:
        Complete(ev);
        break;
      case kInstant:
      case kCounter:
        Instant(ev);
        break;
      case kFlow:
        if constexpr (requires(Flow f) { visit_.OnFlow(f); })
          visit_.OnFlow(Flow{ev.ts, ev.u64, static_cast<FlowPhase>(ev.small)});
        break;
      case kThreadName:
        if constexpr (requires { visit_.OnThreadName(ev.s1); }) visit_.OnThreadName(ev.s1);
        break;
      default:
        break;
    }
  }

  // A capture window closed at `end`: every open slice ends there (or at its start, if later),
  // unclosed.
  void CloseAtGap(uint64_t end) {
    while (!stack_.empty()) Close(std::max(end, stack_.back().start), true);
  }
  // The stream ended at `end`: every open slice ends there, unclosed.
  void CloseAll(uint64_t end) {
    while (!stack_.empty()) Close(end, true);
  }

 private:
  uint32_t CurrentOp() const { return ops_.empty() ? 0 : ops_.back(); }
  uint16_t Depth() const {
    return static_cast<uint16_t>(std::min<size_t>(stack_.size(), UINT16_MAX));
  }

  void Close(uint64_t end, bool unclosed) {
    Slice s = stack_.back();
    stack_.pop_back();
    ops_.pop_back();
    s.end = end;
    s.unclosed = unclosed;
    if (!stack_.empty()) stack_.back().child_ns += s.Duration();
    visit_.OnSlice(s);
  }

  // A slice placed under the innermost open slice (begin and complete events alike).
  Slice Placed(const RawEvent& e) const {
    Slice s;
    s.name = e.name;
    s.category = e.category;
    s.depth = Depth();
    if (!stack_.empty()) {
      s.parent = stack_.back().name;
      s.parent_category = stack_.back().category;
    }
    s.op = CurrentOp();
    s.args = ArgsView::Of(e);
    return s;
  }

  void Begin(const RawEvent& ev) {
    Slice s = Placed(ev);
    s.start = ev.ts;
    stack_.push_back(s);
    ops_.push_back(IsOpLike(MeaningOfSlice(proc_, s.category, s.name, s.args)) ? s.name : s.op);
    visit_.OnBegin(stack_.back());
  }

  // A complete event: a slice that ends at its time, inside the open slices.
  void Complete(const RawEvent& ev) {
    Slice s = Placed(ev);
    s.start = ev.ts >= ev.duration ? ev.ts - ev.duration : 0;
    s.end = ev.ts;
    if (!stack_.empty()) stack_.back().child_ns += ev.duration;
    visit_.OnBegin(s);
    visit_.OnSlice(s);
  }

  // An instant or a counter sample.
  void Instant(const RawEvent& ev) {
    Point p;
    p.ts = ev.ts;
    p.name = ev.name;
    p.category = ev.category;
    p.value = ev.value;
    p.counter = ev.id == layout::kCounter;
    p.op = CurrentOp();
    p.depth = Depth();
    p.args = ArgsView::Of(ev);
    visit_.OnPoint(p);
  }

  const Process& proc_;
  V& visit_;
  std::vector<Slice> stack_;
  std::vector<uint32_t> ops_;  // per open slice: the innermost op at or above it
};

}  // namespace scan_detail

template <typename V>
void ScanTrack(const TraceModel& m, const Track& t, std::vector<Problem>* problems, V& visit) {
  const Process& proc = m.processes[t.process];
  StreamDecoder dec(m.Stream(t.file), proc.meta, problems);
  scan_detail::SliceStack<V> slices(proc, visit);
  uint64_t last = 0;
  // Between two capture windows a thread's ends and begins were not written: the slices still
  // open when a window closed end there (unclosed), and an end after the gap whose begin was
  // not written finds no slice open (a thread's slices nest).
  size_t gap = 0;
  const auto& gaps = proc.capture_gaps;
  // The job's clock alignment (Process::shift_ns), added in unsigned arithmetic: an aligned
  // time is never negative (it lies in the reference's run).
  const auto shift = static_cast<uint64_t>(proc.shift_ns);
  RawEvent ev;
  while (dec.Next(&ev)) {
    for (; gap < gaps.size() && ev.ts >= gaps[gap].second; ++gap)
      slices.CloseAtGap(gaps[gap].first + shift);
    ev.ts += shift;
    last = ev.ts;
    slices.Add(ev);
  }
  slices.CloseAll(last);
}

}  // namespace tt::model
