#include "export/walk.h"

#include <algorithm>
#include <cstdio>
#include <queue>

#include "core/error.h"

namespace tt::exporter {

using layout::ArgType;

std::string JsonString(std::string_view s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\t':
        o += "\\t";
        break;
      default:
        if (c < 0x20 || c >= 0x80) {
          // Non-ASCII bytes may not be valid UTF-8: escape each one.
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

std::vector<Arg> ArgList(const model::ArgsView& a) {
  std::vector<Arg> out;
  ArgCursor c = a.Cursor();
  for (uint8_t i = 0; i < a.count; ++i) {
    Arg x;
    c.Next(&x);
    out.push_back(x);
  }
  return out;
}

std::string ArgValueText(const model::Process& p, const Arg& a) {
  char b[64];
  switch (a.type) {
    case ArgType::kInt:
      std::snprintf(b, sizeof b, "%lld", static_cast<long long>(a.v.i));
      break;
    case ArgType::kUint:
      std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(a.v.u));
      break;
    case ArgType::kFloat:
      std::snprintf(b, sizeof b, "%.17g", a.v.f);
      break;
    case ArgType::kString:
      return std::string(p.Name(a.v.str));
  }
  return b;
}

namespace {

// Keeps the events of the selected steps and before the cut-off time; counts what it keeps.
struct Filter {
  const model::TraceModel& m;
  const model::Process& proc;
  const model::Track& track;
  const std::vector<analysis::Window>* windows;
  uint64_t cutoff;
  EventVisitor* out;                        // null: count only
  std::priority_queue<uint64_t>* earliest;  // the counting pass: the max_events earliest times
  uint64_t limit;
  WalkResult* r;
  bool Keep(uint64_t ts) {
    if (windows && !analysis::InWindows(*windows, ts)) return false;
    if (ts > cutoff) {
      r->left_out++;
      return false;
    }
    return true;
  }
  void OnBegin(const model::Slice& s) {
    // The same decision OnSlice makes on the same start, without counting.
    if (!out || (windows && !analysis::InWindows(*windows, s.start)) || s.start > cutoff) return;
    out->OnBegin(proc, track, s);
  }
  void OnSlice(const model::Slice& s) {
    if (!Keep(s.start)) return;
    r->events++;
    if (earliest) Count(s.start);
    if (out) out->OnSlice(proc, track, s);
  }
  void OnPoint(const model::Point& p) {
    if (!Keep(p.ts)) return;
    r->events++;
    if (earliest) Count(p.ts);
    if (out) out->OnPoint(proc, track, p);
  }
  void OnFlow(const model::Flow& f) {
    // Not an event of its own: kept or not as the slice it binds to (which starts with it).
    if (out && (!windows || analysis::InWindows(*windows, f.ts)) && f.ts <= cutoff)
      out->OnFlow(proc, track, f);
  }
  void Count(uint64_t ts) {
    if (earliest->size() < limit) {
      earliest->push(ts);
    } else if (ts < earliest->top()) {
      earliest->pop();
      earliest->push(ts);
    }
  }
};

}  // namespace

WalkResult Walk(const model::TraceModel& m, const Selection& sel, EventVisitor& v,
                std::vector<Problem>* problems) {
  analysis::Windows windows;
  if (sel.steps || sel.skip_warmup)
    windows = analysis::SelectWindows(m, analysis::FindSteps(m, sel.step_names, 0), sel.steps,
                                      sel.skip_warmup);
  uint64_t cutoff = UINT64_MAX;
  if (sel.max_events) {
    // A counting pass: the time of the max_events-th earliest event is the cut-off (memory:
    // max_events times).
    std::priority_queue<uint64_t> earliest;
    WalkResult count;
    for (const auto& t : m.tracks) {
      const model::Process& p = m.processes[t.process];
      Filter f{m,          p,       t,         windows.empty() ? nullptr : &windows[t.process],
               UINT64_MAX, nullptr, &earliest, sel.max_events,
               &count};
      model::ScanTrack(m, t, nullptr, f);
    }
    if (count.events > sel.max_events) cutoff = earliest.top();
  }
  WalkResult r;
  for (size_t pi = 0; pi < m.processes.size(); ++pi) {
    const model::Process& p = m.processes[pi];
    v.BeginProcess(p);
    for (size_t ti : p.tracks) {
      const model::Track& t = m.tracks[ti];
      v.BeginTrack(p, t);
      Filter f{m, p, t, windows.empty() ? nullptr : &windows[pi], cutoff, &v, nullptr, 0, &r};
      model::ScanTrack(m, t, problems, f);
    }
    v.EndProcess(p, pi, Chosen{&windows, cutoff});
  }
  if (r.events == 0) throw Error("the selection holds no events; nothing was written");
  return r;
}

}  // namespace tt::exporter
