#include "model/inventory.h"

#include <algorithm>
#include <set>

namespace tt::model {

using namespace layout;

const char* EventKindName(uint8_t id) { return EventName(id); }

// The source that produces events of a category (until sources announce themselves).
static const char* SourceOf(Category c) {
  switch (c) {
    case Category::kUser:
      return "annotations";
    case Category::kFrameworkOp:
    case Category::kStep:
    case Category::kAllocation:
      return "framework";
    case Category::kRuntimeApi:
    case Category::kGpuKernel:
    case Category::kMemcpy:
    case Category::kMemset:
    case Category::kSync:
      return "cuda";
    case Category::kCommunication:
      return "communication";
    case Category::kPython:
      return "python";
    case Category::kPrimitive:
      return "itt";
    default:
      return "other";
  }
}

ProcessSummary StartProcess(const ProcessTrace& proc) {
  ProcessSummary ps;
  ps.dir = proc.dir;
  ps.meta = proc.meta;
  return ps;
}

void TallyEvent(const RawEvent& ev, ProcessSummary* ps, ThreadSummary* th) {
  if (th->events++ == 0) th->first_ns = ev.ts;
  th->last_ns = ev.ts;
  ps->by_kind[EventKindName(ev.id)]++;
  switch (ev.id) {
    case kSliceBegin:
    case kSliceBeginArgs:
    case kComplete:
    case kInstant:
    case kCounter:
      ps->by_category[static_cast<size_t>(ev.category)]++;
      ps->sources.insert(SourceOf(ev.category));
      break;
    case kThreadName:
      th->name = std::string(ev.s1);
      break;
    case kStringDef:
      ps->strings++;
      break;
    case kClockOffset:
      ps->clock_offsets.emplace_back(std::string(ev.s1), ev.i64);
      break;
    case kDropSummary:
      ps->drop_reasons[std::string(ev.s1)] += ev.u64;
      break;
    case kNote:
      ps->notes.push_back(std::string(ev.s1) + ": " + std::string(ev.s2));
      break;
    case kSource:
      ps->sources.insert(std::string(ev.s1));
      if (!ev.s2.empty()) ps->source_details[std::string(ev.s1)].insert(std::string(ev.s2));
      break;
    default:
      break;
  }
}

void TallyStreamEnd(const StreamHeader& h, ThreadSummary&& th, ProcessSummary* ps) {
  th.tid = h.track_id;
  th.discarded = h.discarded;
  ps->discarded += h.discarded;
  ps->events += th.events;
  if (th.events > 0) {
    ps->first_ns = std::min(ps->first_ns, th.first_ns);
    ps->last_ns = std::max(ps->last_ns, th.last_ns);
  }
  // An imported host line is a thread (its tid, or a made-up id for a line with none); an
  // imported allocator's counter stream ("allocator NAME") is not.
  bool imported_thread = h.kind == TrackKind::kImported && !th.name.starts_with("allocator ");
  th.imported = h.kind == TrackKind::kImported;
  th.ours = !th.imported && th.name.starts_with("tensortrace-");
  if (h.packets > 0 && (h.kind == TrackKind::kThread || imported_thread))
    ps->threads.push_back(std::move(th));
}

void AddProcessSummary(ProcessSummary&& ps, TraceSummary* t) {
  std::sort(ps.threads.begin(), ps.threads.end(),
            [](const ThreadSummary& a, const ThreadSummary& b) {
              return a.tid != b.tid ? a.tid < b.tid : a.imported < b.imported;
            });
  std::set<uint64_t> tids, ours;
  for (const auto& th : ps.threads) (th.ours ? ours : tids).insert(th.tid);
  ps.thread_count = tids.size();
  ps.own_threads = ours.size();
  t->events += ps.events;
  t->threads += ps.thread_count;
  t->discarded += ps.discarded;
  if (ps.first_ns != UINT64_MAX) {
    t->first_ns = std::min(t->first_ns, ps.first_ns);
    t->last_ns = std::max(t->last_ns, ps.last_ns);
  }
  t->processes.push_back(std::move(ps));
}

void FinishSummary(TraceSummary* t) {
  if (!t->path.empty()) t->lost = ReadLossPage(t->path + "/losses");
  std::sort(t->processes.begin(), t->processes.end(),
            [](const ProcessSummary& a, const ProcessSummary& b) {
              return a.meta.start_realtime_ns < b.meta.start_realtime_ns;
            });
}

TraceSummary Summarise(const TraceDir& trace) {
  TraceSummary t;
  t.path = trace.path;
  t.problems = trace.problems;
  for (const auto& proc : trace.processes) {
    ProcessSummary ps = StartProcess(proc);
    for (const auto& file : proc.streams) {
      StreamDecoder dec(trace.files ? trace.files->Get(file) : std::make_shared<MappedStream>(file),
                        proc.meta, &t.problems);
      t.bytes += dec.file_size();
      ThreadSummary th;
      th.file = file;
      RawEvent ev;
      while (dec.Next(&ev)) TallyEvent(ev, &ps, &th);
      TallyStreamEnd(dec.header(), std::move(th), &ps);
    }
    AddProcessSummary(std::move(ps), &t);
  }
  FinishSummary(&t);
  return t;
}

uint64_t TotalDrops(const TraceSummary& t) {
  uint64_t n = 0;
  for (const auto& p : t.processes) n += Drops(p);
  for (const auto& l : t.lost)
    for (uint64_t c : l.counts) n += c;
  return n;
}

uint64_t Drops(const ProcessSummary& p) {
  uint64_t reasons = 0;
  for (const auto& [why, n] : p.drop_reasons) reasons += n;
  return std::max(reasons, p.discarded);
}

}  // namespace tt::model
