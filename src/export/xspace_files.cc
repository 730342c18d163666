#include "export/xspace_files.h"

#include <algorithm>
#include <climits>

#include "core/error.h"
#include "export/sink.h"

namespace tt::exporter::xspace {

namespace {

// Sizes of one host's file, known before any of it is written.
struct FileSizes {
  std::string env;                    // its "Task Environment" plane, encoded
  std::vector<uint64_t> plane_bytes;  // each plane's
  uint64_t bytes = 0;                 // the whole file's
};

// The sorted events, read line after line as the files are written.
struct SortedEvents {
  explicit SortedEvents(SpillSorter& events) : cursor(events.Sorted()) { Advance(); }
  void Advance() { more = cursor.Next(&key, &rec); }
  SpillSorter::Cursor cursor;
  SpillKey key;
  std::string_view rec;
  bool more = false;
};

// Lines start at their first event; their times become relative to their host's profile start
// (`start_ns`, or the first event if earlier). Returns each host's profile start and stop.
std::vector<std::pair<int64_t, int64_t>> ProfileSpans(std::vector<Host>& hosts, int64_t start_ns) {
  std::vector<std::pair<int64_t, int64_t>> span(hosts.size());  // profile start, stop
  for (size_t h = 0; h < hosts.size(); ++h) {
    int64_t first = start_ns ? start_ns : INT64_MAX, last = 0;
    for (auto& pl : hosts[h].planes)
      for (Line& l : pl->lines())
        if (l.events) {
          first = std::min(first, l.first);
          last = std::max(last, l.end);
        }
    for (auto& pl : hosts[h].planes)
      for (Line& l : pl->lines())
        if (l.events) l.timestamp = l.first - first;
    span[h] = {first, std::max(first, last)};
  }
  return span;
}

// First pass: every line's encoded size (an event's size depends on its offset from its line's
// start, known now).
void SizeLines(std::vector<Host>& hosts, SpillSorter& events) {
  std::string head;
  events.Scan([&](const SpillKey& k, std::string_view rec) {
    Line& l = hosts[HostOf(k.a)].planes[PlaneOf(k.a)]->lines()[LineOf(k.a)];
    int64_t md = ReadVarint(&rec);
    EventHead(head, md, (StartOf(k) - l.first) * 1000, static_cast<int64_t>(DurationOf(k)) * 1000);
    l.event_bytes += Framed(line::kEvents, head.size() + rec.size());
  });
}

// The sizes of a host's planes and file (its lines sized); a file protobuf could not read is
// refused.
FileSizes SizeFile(const Host& host, std::pair<int64_t, int64_t> span) {
  FileSizes size;
  std::string out, scratch, entry;
  size.env = TaskEnvironment(span.first, span.second);
  size.bytes =
      Framed(space::kPlanes, size.env.size()) + Framed(space::kHostnames, host.name.size());
  for (auto& pl : host.planes) {
    uint64_t n = PlaneHead(*pl, &out);
    for (Line& l : pl->lines()) n += Framed(plane::kLines, LineSize(l, &scratch));
    pl->Metadata(scratch, entry, [&](const std::string& e) { n += e.size(); });
    size.plane_bytes.push_back(n);
    size.bytes += Framed(space::kPlanes, n);
  }
  if (size.bytes > INT_MAX)
    throw Error("the XSpace for host " + host.name + " would take " +
                std::to_string(size.bytes >> 20) +
                " MiB; protobuf reads at most 2 GiB (choose fewer events with --steps A:B "
                "or --max-events N)");
  return size;
}

// One line: its head, its events (the sorted events of `key`, which come next), its tail.
void WriteLine(const Line& l, uint64_t key, Sink& sink, SortedEvents& events) {
  std::string out, scratch, head;
  Head(out, plane::kLines, LineSize(l, &scratch));
  LineHead(l, &scratch);
  out += scratch;
  sink.Write(out);
  uint64_t written = 0;
  for (; events.more && events.key.a == key; events.Advance()) {
    std::string_view rec = events.rec;
    int64_t md = ReadVarint(&rec);
    EventHead(head, md, (StartOf(events.key) - l.first) * 1000,
              static_cast<int64_t>(DurationOf(events.key)) * 1000);
    out.clear();
    Head(out, line::kEvents, head.size() + rec.size());
    out += head;
    out.append(rec);
    sink.Write(out);
    written += out.size();
  }
  if (written != l.event_bytes) throw Error("internal error: XSpace line sizes differ");
  LineTail(l, &scratch);
  sink.Write(scratch);
}

// Plane `pi` of host `h`, framed (`bytes` long): its head, its lines, its metadata.
void WritePlane(const Host& host, size_t h, size_t pi, uint64_t bytes, Sink& sink,
                SortedEvents& events) {
  Plane& pl = *host.planes[pi];
  std::string out, scratch, entry;
  Head(out, space::kPlanes, bytes);
  sink.Write(out);
  PlaneHead(pl, &out);
  sink.Write(out);
  for (size_t li = 0; li < pl.lines().size(); ++li)
    WriteLine(pl.lines()[li], LineKey(h, pi, li), sink, events);
  pl.Metadata(scratch, entry, [&](const std::string& e) { sink.Write(e); });
}

// Host `h`'s file, HOST.xplane.pb in `run_dir`: its planes, the Task Environment plane, its
// host name.
void WriteFile(const Host& host, size_t h, const FileSizes& size, const std::string& run_dir,
               SortedEvents& events, XSpaceResult* r) {
  std::string file = host.name;
  std::replace(file.begin(), file.end(), '/', '_');
  file = run_dir + "/" + file + ".xplane.pb";
  Sink sink(file, false);
  for (size_t pi = 0; pi < host.planes.size(); ++pi)
    WritePlane(host, h, pi, size.plane_bytes[pi], sink, events);
  std::string out;
  Head(out, space::kPlanes, size.env.size());
  sink.Write(out);
  sink.Write(size.env);
  out.clear();
  wire::String(out, space::kHostnames, host.name);
  sink.Write(out);
  if (sink.bytes() != size.bytes) throw Error("internal error: XSpace file size differs");
  sink.Commit();
  r->files.push_back(file);
  r->bytes += sink.bytes();
}

}  // namespace

void WriteFiles(std::vector<Host>& hosts, SpillSorter& events, int64_t start_ns,
                const std::string& run_dir, XSpaceResult* r) {
  std::vector<std::pair<int64_t, int64_t>> span = ProfileSpans(hosts, start_ns);
  SizeLines(hosts, events);
  std::vector<FileSizes> sizes;
  for (size_t h = 0; h < hosts.size(); ++h) sizes.push_back(SizeFile(hosts[h], span[h]));
  // Second pass: the bytes, host after host, line after line.
  SortedEvents sorted(events);
  for (size_t h = 0; h < hosts.size(); ++h) WriteFile(hosts[h], h, sizes[h], run_dir, sorted, r);
  if (sorted.more) throw Error("internal error: XSpace events left unwritten");
}

}  // namespace tt::exporter::xspace
