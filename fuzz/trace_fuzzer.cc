// libFuzzer target for everything that reads a trace: the stream decoder, the metadata parser,
// the model and every statistics view. Bad input may only ever throw tt::Error; any other
// exception, a crash, a hang or a sanitizer report is a bug.
//
// The first byte of the input picks what the rest is:
//   bit 0 == 0: stream files of a process directory whose metadata is valid (fixed, written
//               once at start-up, uuid kUuid). Bit 4 clear: the rest is the stream file `t1`.
//               Bit 4 set: the rest is a uint32 (little-endian) length N, then N bytes of a
//               second stream file `proc1` (a process stream, usually), then `t1`. The trace is
//               read with OpenTrace + StreamDecoder, LoadModel, ScanTrack and
//               analysis::Compute for every view; bits 1..3 vary Compute's step selection.
//   bit 0 == 1: the rest is the text of a metadata file, given to ParseMetadata; what parses is
//               generated again and must parse again to the same values.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/views/stats.h"
#include "analysis/views/view.h"
#include "core/error.h"
#include "format/metadata.h"
#include "format/reader.h"
#include "model/model.h"
#include "model/scan.h"

namespace {

// The trace uuid of the fixed metadata; streams must carry it in every packet header
// (fuzz/make_corpus.py rewrites the seeds' packets to it).
constexpr tt::Uuid kUuid = {0x7e, 0x45, 0x54, 0x72, 0xac, 0xe0, 0x4f, 0x0a,
                            0x9b, 0x1c, 0x0d, 0xde, 0xf0, 0x0d, 0x5e, 0xed};

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "trace_fuzzer: %s: %s\n", what, std::strerror(errno));
  std::abort();
}

struct Workspace {
  std::string root;    // the trace directory (holds one process directory)
  std::string proc;    // root/p1: metadata + t1
  std::string stream;  // root/p1/t1, rewritten for each input
  std::string second;  // root/p1/proc1, written for inputs with bit 4 set, else removed
  std::string metadata;
};

Workspace* g_ws = nullptr;

void RemoveWorkspace() {
  if (!g_ws) return;
  unlink(g_ws->stream.c_str());
  unlink(g_ws->second.c_str());
  unlink(g_ws->metadata.c_str());
  rmdir(g_ws->proc.c_str());
  rmdir(g_ws->root.c_str());
}

void WriteAll(const std::string& path, const uint8_t* data, size_t size) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Die(path.c_str());
  size_t off = 0;
  while (off < size) {
    ssize_t n = write(fd, data + off, size - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Die(path.c_str());
    off += static_cast<size_t>(n);
  }
  if (close(fd) != 0) Die(path.c_str());
}

tt::ProcessMeta FixedMeta() {
  tt::ProcessMeta m;
  m.trace_uuid = kUuid;
  m.clock_uuid = "0b00c1d0-0000-4000-8000-00000000f022";
  m.clock_offset_ns = 1700000000123456789;
  m.pid = 1;
  m.ppid = 0;
  m.hostname = "fuzz";
  m.cmdline = "trace_fuzzer";
  m.session = "fuzz-session";
  m.start_realtime_ns = 1700000000000000000;
  m.offset_start_ns = 1700000000123456789;
  m.offset_end_ns = 1700000000123456790;
  m.end_state = "exited";
  m.end_offset_by = "process";
  return m;
}

void SetUp() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/tt_fuzz.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) Die(tmpl.c_str());
  g_ws = new Workspace;
  g_ws->root = buf.data();
  g_ws->proc = g_ws->root + "/p1";
  g_ws->stream = g_ws->proc + "/t1";
  g_ws->second = g_ws->proc + "/proc1";
  g_ws->metadata = g_ws->proc + "/metadata";
  if (mkdir(g_ws->proc.c_str(), 0755) != 0) Die(g_ws->proc.c_str());
  std::string text = tt::GenerateMetadata(FixedMeta());
  WriteAll(g_ws->metadata, reinterpret_cast<const uint8_t*>(text.data()), text.size());
  std::atexit(RemoveWorkspace);
}

// Reads every byte a decoded event points at, so that ASan sees any read past the mapping.
uint64_t Touch(std::string_view s) {
  uint64_t h = s.size();
  for (char c : s) h = h * 131 + static_cast<unsigned char>(c);
  return h;
}

uint64_t DecodeAll(const tt::TraceDir& t, std::vector<tt::Problem>* problems) {
  uint64_t h = 0;
  for (const auto& p : t.processes) {
    for (const auto& file : p.streams) {
      tt::StreamDecoder dec(file, p.meta, problems);
      tt::RawEvent ev;
      while (dec.Next(&ev)) {
        h += ev.id + ev.ts + ev.name + ev.duration + ev.u64;
        switch (ev.id) {
          case tt::layout::kStringDef:
          case tt::layout::kThreadName:
          case tt::layout::kClockOffset:
          case tt::layout::kDropSummary:
            h += Touch(ev.s1);
            break;
          case tt::layout::kNote:
          case tt::layout::kSource:
            h += Touch(ev.s1) + Touch(ev.s2);
            break;
          case tt::layout::kSliceBeginArgs:
          case tt::layout::kComplete:
          case tt::layout::kInstant:
            for (uint32_t i = 0; i < ev.nargs; ++i) {
              tt::Arg a = ev.ArgAt(i);
              h += a.key + static_cast<uint64_t>(a.type);
            }
            break;
          default:
            break;
        }
      }
      h += dec.header().packets + dec.header().track_id + dec.file_size();
    }
  }
  return h;
}

// Looks every slice's and point's arguments up, as the analyses do.
struct ScanVisitor {
  const tt::model::Process* process;
  uint64_t h = 0;
  void Args(const tt::model::ArgsView& a) {
    tt::Arg x;
    for (uint32_t key = 0; key < 4; ++key)
      if (a.Find(key, &x)) h += x.type == tt::layout::ArgType::kString ? x.v.str : x.v.u;
  }
  void OnBegin(const tt::model::Slice& s) { h += s.start + s.depth; }
  void OnSlice(const tt::model::Slice& s) {
    h += s.Duration() + s.Self() + Touch(process->Name(s.name)) + Touch(process->Name(s.op));
    Args(s.args);
  }
  void OnPoint(const tt::model::Point& p) {
    h += p.ts + p.depth + Touch(process->Name(p.name));
    Args(p.args);
  }
  void OnThreadName(std::string_view n) { h += Touch(n); }
};

uint64_t SumRows(const std::vector<tt::analysis::Row>& rows) {
  uint64_t h = rows.size();
  for (const auto& r : rows) {
    tt::analysis::Summary s = r.incl;
    // Compared, not cast: a median near 2^64 ns does not fit a uint64_t.
    h += r.self_ns + r.incl.count() + (s.Median() >= r.incl.mean()) + Touch(r.name);
    h += (r.incl.stddev() >= 0) + SumRows(r.children);
  }
  return h;
}

void FuzzTrace(uint8_t mode, const uint8_t* data, size_t size) {
  if (mode & 0x10) {
    uint32_t n = 0;
    if (size >= 4) {
      std::memcpy(&n, data, 4);
      data += 4;
      size -= 4;
    }
    n = static_cast<uint32_t>(std::min<size_t>(n, size));
    WriteAll(g_ws->second, data, n);
    data += n;
    size -= n;
  } else if (unlink(g_ws->second.c_str()) != 0 && errno != ENOENT) {
    Die(g_ws->second.c_str());
  }
  WriteAll(g_ws->stream, data, size);
  volatile uint64_t sink = 0;
  std::vector<tt::Problem> problems;
  try {
    tt::TraceDir t = tt::OpenTrace(g_ws->root);
    sink = sink + DecodeAll(t, &problems);
  } catch (const tt::Error&) {
  }
  tt::model::TraceModel m;
  try {
    m = tt::model::LoadModel(g_ws->root);
  } catch (const tt::Error&) {
    return;
  }
  for (const auto& t : m.tracks) {
    ScanVisitor v{&m.processes[t.process]};
    tt::model::ScanTrack(m, t, &problems, v);
    sink = sink + v.h;
  }
  for (const tt::analysis::ViewDef* view : tt::analysis::Views()) {
    tt::analysis::Options o;
    o.view = view->name;
    o.threads = 1;  // deterministic, and no thread start-up per input
    if (mode & 2) o.skip_warmup = 1;
    if (mode & 4) o.steps = tt::analysis::StepRange{1, 2};
    if (mode & 8) o.step_names = {"step", "train_step"};
    try {
      tt::analysis::Result r = tt::analysis::Compute(m, o, &problems);
      sink = sink + SumRows(r.rows) + r.steps.size() + r.events + r.total_ns;
    } catch (const tt::Error&) {
    }
  }
  for (const auto& p : problems) sink = sink + p.ToString().size();
}

// The metadata writer turns control characters in strings into spaces; nothing else changes.
std::string Norm(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

bool SameMeta(const tt::ProcessMeta& a, const tt::ProcessMeta& b) {
  return a.layout_version == b.layout_version && a.trace_uuid == b.trace_uuid &&
         Norm(a.clock_uuid) == Norm(b.clock_uuid) &&
         a.clock_offset_ns == b.clock_offset_ns && a.pid == b.pid && a.ppid == b.ppid &&
         a.exec_generation == b.exec_generation && Norm(a.hostname) == Norm(b.hostname) &&
         Norm(a.cmdline) == Norm(b.cmdline) && Norm(a.session) == Norm(b.session) &&
         a.start_realtime_ns == b.start_realtime_ns && a.offset_start_ns == b.offset_start_ns &&
         a.offset_end_ns == b.offset_end_ns && Norm(a.end_state) == Norm(b.end_state) &&
         Norm(a.end_offset_by) == Norm(b.end_offset_by) &&
         Norm(a.tracing_error) == Norm(b.tracing_error);
}

void FuzzMetadata(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  tt::ProcessMeta m;
  try {
    m = tt::ParseMetadata(text, "fuzz/metadata");
  } catch (const tt::Error&) {
    return;
  }
  // What parsed must survive generation: the writer and the parser agree on the format.
  std::string again = tt::GenerateMetadata(m);
  tt::ProcessMeta m2;
  try {
    m2 = tt::ParseMetadata(again, "fuzz/metadata (generated)");
  } catch (const tt::Error& e) {
    std::fprintf(stderr, "metadata that parsed does not parse once generated again: %s\n",
                 e.what());
    std::abort();
  }
  if (!SameMeta(m, m2)) {
    std::fprintf(stderr, "metadata changed through GenerateMetadata + ParseMetadata\n");
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  SetUp();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  uint8_t mode = data[0];
  if (mode & 1)
    FuzzMetadata(data + 1, size - 1);
  else
    FuzzTrace(mode, data + 1, size - 1);
  return 0;
}
