#include "trace_view.h"

#include <algorithm>

#include "core/files.h"
#include "format/writer.h"

namespace tt::test {

size_t ProcView::Count(uint8_t id, const std::string& name) const {
  size_t n = 0;
  for (const auto& e : events) n += e.id == id && (name.empty() || e.name == name);
  return n;
}

uint64_t ProcView::Drops() const {
  uint64_t summary = 0;
  for (const auto& e : events)
    if (e.id == layout::kDropSummary) summary += e.u64;
  return std::max(summary, discarded);
}

const ProcView* TraceView::FindByCmdline(const std::string& needle) const {
  for (const auto& p : procs)
    if (p.meta.cmdline.find(needle) != std::string::npos) return &p;
  return nullptr;
}

TraceView LoadTrace(const std::string& dir) {
  TraceView v;
  TraceDir t = OpenTrace(dir);
  v.problems = t.problems;
  for (const auto& proc : t.processes) {
    ProcView pv;
    pv.meta = proc.meta;
    std::vector<std::pair<uint32_t, size_t>> unresolved;  // name id, event index
    for (const auto& file : proc.streams) {
      StreamDecoder dec(file, proc.meta, &v.problems);
      RawEvent r;
      std::vector<Ev> evs;
      while (dec.Next(&r)) {
        Ev e{r.id, r.ts, "", r.category, r.value, r.u64, r.duration, {}, r.shape != nullptr, 0, file};
        if (r.id == layout::kStringDef) pv.names[r.name] = std::string(r.s1);
        if (r.id == layout::kThreadName || r.id == layout::kClockOffset ||
            r.id == layout::kDropSummary || r.id == layout::kSource)
          e.name = std::string(r.s1);
        if (r.id == layout::kNote) e.name = std::string(r.s2);
        if (r.id == layout::kSliceBegin || r.id == layout::kSliceBeginArgs ||
            r.id == layout::kComplete || r.id == layout::kInstant || r.id == layout::kCounter)
          unresolved.emplace_back(r.name, pv.events.size() + evs.size());
        for (uint32_t i = 0; i < r.nargs; ++i) e.args.push_back(r.ArgAt(i));
        evs.push_back(std::move(e));
      }
      for (auto& e : evs) {
        e.tid = dec.header().track_id;
        if (e.id == layout::kThreadName) pv.thread_names[e.tid] = e.name;
      }
      pv.discarded += dec.header().discarded;
      pv.events.insert(pv.events.end(), evs.begin(), evs.end());
    }
    for (auto [id, idx] : unresolved) {
      auto it = pv.names.find(id);
      pv.events[idx].name = it == pv.names.end() ? "<unresolved " + std::to_string(id) + ">"
                                                 : it->second;
    }
    v.total_events += pv.events.size();
    v.procs.push_back(std::move(pv));
  }
  return v;
}

PacketChain ReadPacketChain(const std::string& file) {
  std::string data = ReadFile(file);
  PacketChain c;
  c.size = data.size();
  while (c.end + layout::kPacketHeaderSize <= data.size()) {
    const auto* h = reinterpret_cast<const uint8_t*>(data.data() + c.end);
    c.magic = c.magic && Load<uint32_t>(h + layout::kOffMagic) == layout::kMagic;
    c.last_size = Load<uint64_t>(h + layout::kOffPacketSize) / 8;
    c.last_content = Load<uint64_t>(h + layout::kOffContentSize) / 8;
    if (c.last_size == 0) break;
    c.end += c.last_size;
    ++c.packets;
  }
  return c;
}

std::vector<std::string> StreamFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& proc : ListDirectory(dir)) {
    if (proc.rfind("p", 0) != 0 || !IsDirectory(dir + "/" + proc)) continue;
    for (const auto& f : ListDirectory(dir + "/" + proc))
      if (f != "metadata") out.push_back(dir + "/" + proc + "/" + f);
  }
  return out;
}

}  // namespace tt::test
