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

template <typename V>
void ScanTrack(const TraceModel& m, const Track& t, std::vector<Problem>* problems, V& visit) {
  using namespace layout;
  const Process& proc = m.processes[t.process];
  StreamDecoder dec(m.Stream(t.file), proc.meta, problems);
  std::vector<Slice> stack;
  std::vector<uint32_t> ops;  // per open slice: the innermost op at or above it
  uint64_t last = 0;
  auto current_op = [&]() -> uint32_t { return ops.empty() ? 0 : ops.back(); };
  auto depth = [&]() -> uint16_t {
    return static_cast<uint16_t>(std::min<size_t>(stack.size(), UINT16_MAX));
  };
  auto close = [&](uint64_t end, bool unclosed) {
    Slice s = stack.back();
    stack.pop_back();
    ops.pop_back();
    s.end = end;
    s.unclosed = unclosed;
    if (!stack.empty()) stack.back().child_ns += s.Duration();
    visit.OnSlice(s);
  };
  // A slice placed under the innermost open slice (begin and complete events alike).
  auto placed = [&](const RawEvent& e) {
    Slice s;
    s.name = e.name;
    s.category = e.category;
    s.depth = depth();
    if (!stack.empty()) {
      s.parent = stack.back().name;
      s.parent_category = stack.back().category;
    }
    s.op = current_op();
    s.args = ArgsView::Of(e);
    return s;
  };
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
      while (!stack.empty()) close(std::max(gaps[gap].first + shift, stack.back().start), true);
    ev.ts += shift;
    last = ev.ts;
    switch (ev.id) {
      case kSliceBegin:
      case kSliceBeginArgs: {
        Slice s = placed(ev);
        s.start = ev.ts;
        stack.push_back(s);
        ops.push_back(IsOpLike(MeaningOfSlice(proc, s.category, s.name, s.args)) ? s.name : s.op);
        visit.OnBegin(stack.back());
        break;
      }
      case kSliceEnd:
        if (!stack.empty()) close(ev.ts, false);
        break;
      case kComplete: {
        Slice s = placed(ev);
        s.start = ev.ts >= ev.duration ? ev.ts - ev.duration : 0;
        s.end = ev.ts;
        if (!stack.empty()) stack.back().child_ns += ev.duration;
        visit.OnBegin(s);
        visit.OnSlice(s);
        break;
      }
      case kInstant:
      case kCounter: {
        Point p;
        p.ts = ev.ts;
        p.name = ev.name;
        p.category = ev.category;
        p.value = ev.value;
        p.counter = ev.id == kCounter;
        p.op = current_op();
        p.depth = depth();
        p.args = ArgsView::Of(ev);
        visit.OnPoint(p);
        break;
      }
      case kFlow:
        if constexpr (requires(Flow f) { visit.OnFlow(f); })
          visit.OnFlow(Flow{ev.ts, ev.u64, static_cast<FlowPhase>(ev.small)});
        break;
      case kThreadName:
        if constexpr (requires { visit.OnThreadName(ev.s1); }) visit.OnThreadName(ev.s1);
        break;
      default:
        break;
    }
  }
  while (!stack.empty()) close(last, true);
}

}  // namespace tt::model
