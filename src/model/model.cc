#include "model/model.h"

#include <string>

#include "core/files.h"

namespace tt::model {

using namespace layout;

TraceModel LoadModel(const std::string& dir) { return LoadModel(OpenTrace(dir)); }

TraceModel LoadModel(const TraceDir& t) {
  TraceModel m;
  m.path = t.path;
  m.problems = t.problems;
  m.files = t.files;
  for (const auto& pt : t.processes) {
    Process p;
    p.meta = pt.meta;
    size_t pi = m.processes.size();
    for (const auto& file : pt.streams) {
      // Damage in thread and device streams is reported when they are scanned; here only the
      // process stream (read whole) reports its own.
      std::vector<Problem> problems;
      StreamDecoder dec(m.Stream(file), pt.meta, &problems);
      Track tr;
      tr.process = pi;
      tr.file = file;
      tr.bytes = dec.file_size();
      m.bytes += tr.bytes;
      RawEvent ev;
      // The first event fixes the packet header; the process stream is read whole (names),
      // thread streams only their first events: a thread is named after the process when its
      // stream opens and usually renamed right after, so the last name among those wins.
      constexpr int kNameWindow = 256;
      int seen = 0;
      bool any = dec.Next(&ev);
      const StreamHeader& h = dec.header();
      if (h.packets == 0) continue;
      tr.kind = h.kind;
      tr.id = h.track_id;
      while (any) {
        if (ev.id == kStringDef && ev.name > kMaxNameId) {
          problems.push_back({file, ev.offset, "name id " + std::to_string(ev.name) +
                                                   " out of range; definition skipped"});
        } else if (ev.id == kStringDef) {
          if (ev.name >= p.names.size()) p.names.resize(ev.name + 1);
          p.names[ev.name] = std::string(ev.s1);
        } else if (ev.id == kThreadName) {
          tr.name = std::string(ev.s1);
        }
        if (h.kind != TrackKind::kProcess && ++seen >= kNameWindow) break;
        if (h.kind == TrackKind::kDevice) break;
        any = dec.Next(&ev);
      }
      if (h.kind == TrackKind::kDevice)
        tr.name = "GPU " + std::to_string(h.track_id >> 32) + " stream " +
                  std::to_string(h.track_id & 0xffffffff);
      if (h.kind == TrackKind::kProcess) {  // names only
        m.problems.insert(m.problems.end(), problems.begin(), problems.end());
        continue;
      }
      p.tracks.push_back(m.tracks.size());
      m.tracks.push_back(std::move(tr));
    }
    m.processes.push_back(std::move(p));
  }
  return m;
}

}  // namespace tt::model
