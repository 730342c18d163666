// Opening a trace directory (OpenTrace: its processes, their metadata and event classes) and the
// damage noted while reading. Stream files are mapped in mapped_stream.cc and decoded in
// stream_decoder.cc.
#include "format/reader.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/files.h"
#include "format/reader_internal.h"

namespace tt {

using namespace layout;

std::string Problem::ToString() const {
  return file + ": offset " + std::to_string(offset) + ": " + what;
}

static std::mutex g_damage_mu;
static std::vector<DamageKind>* g_damage = new std::vector<DamageKind>;  // never freed

void NoteDamage(const Problem& p) {
  std::lock_guard<std::mutex> lock(g_damage_mu);
  // Several passes of one command read a stream again and meet its damage again: a place
  // counts once.
  for (auto& k : *g_damage)
    if (k.first.file == p.file && k.what == p.what) {
      if (k.places.count(p.offset)) return;
      ++k.count;
      if (k.places.size() < 4096) k.places.insert(p.offset);
      return;
    }
  if (g_damage->size() < 1000) g_damage->push_back({p.what, p, 1, {p.offset}});
}

std::vector<DamageKind> NotedDamage() {
  std::lock_guard<std::mutex> lock(g_damage_mu);
  return *g_damage;
}

static bool IsStreamFile(const std::string& name) {
  return name != "metadata" && !name.empty() && name[0] != '.' &&
         name.find(".tmp") == std::string::npos;
}

// The event classes defined in the process stream `path`, with the texts of their names and
// keys. Its damage is reported where the stream is read again (the model, `info`).
static std::vector<EventClass> ReadClasses(std::shared_ptr<const MappedStream> file,
                                           const ProcessMeta& meta) {
  std::vector<EventClass> classes;
  std::vector<std::string_view> names;
  std::vector<Problem> ignored;
  StreamDecoder dec(std::move(file), meta, &ignored);
  RawEvent ev;
  while (dec.Next(&ev)) {
    if (ev.id == kEventClassDef && dec.header().kind == TrackKind::kProcess) {
      EventClass c = ParseClassDef(ev.args);
      bool dup = false;
      for (const auto& k : classes) dup |= k.id == c.id;
      if (!dup) classes.push_back(c);
    } else if (ev.id == kStringDef && ev.name < (1u << 24)) {
      if (ev.name >= names.size()) names.resize(ev.name + 1);
      names[ev.name] = ev.s1;
    }
  }
  if (dec.header().kind != TrackKind::kProcess) return {};
  auto text = [&](uint32_t id) { return std::string(id < names.size() ? names[id] : ""); };
  for (auto& c : classes) {
    c.name_text = text(c.name);
    for (uint32_t i = 0; i < c.nargs; ++i)
      c.key_texts.push_back(text(Load<uint32_t>(c.shape + i * kArgHeadSize)));
  }
  std::sort(classes.begin(), classes.end(),
            [](const EventClass& a, const EventClass& b) { return a.id < b.id; });
  return classes;
}

static void AddProcess(const std::string& dir, TraceDir* out) {
  std::string mpath = dir + "/metadata";
  try {
    ProcessTrace p;
    p.dir = dir;
    p.meta = ParseMetadata(ReadMetadataFile(mpath), mpath);
    for (const auto& name : ListDirectory(dir)) {
      std::string full = dir + "/" + name;
      struct stat st;
      if (!IsStreamFile(name) || lstat(full.c_str(), &st) != 0) continue;
      // A FIFO, device, directory or link where a stream belongs is never opened (it could
      // block). (An empty stream file is damage once record has finished: CheckFinished.)
      if (!S_ISREG(st.st_mode))
        out->problems.push_back(
            {full, 0,
             std::string("skipped: it is ") + FileTypeName(st.st_mode) + ", not a stream file"});
      else
        p.streams.push_back(full);
    }
    // A trace still being written: the other streams are copied first, so that the process
    // streams copied after them define every name and class their events use (the runtime
    // writes a definition before its first use).
    auto defines = [&](const std::string& s) {
      std::string base = s.substr(dir.size() + 1);
      return base.starts_with("proc") || base.starts_with("xspace") || base.starts_with("kineto");
    };
    if (StreamFilesCopied())
      for (const auto& s : p.streams)
        if (!defines(s)) out->files->Get(s);
    // The process streams define the classes the other streams' events use: the runtime's
    // (proc<pid>) and the imports' (xspace, xspace.N; kineto, kineto.N).
    if (p.meta.layout_version >= 3) {
      for (const auto& s : p.streams) {
        if (defines(s)) {
          auto more = ReadClasses(out->files->Get(s), p.meta);
          p.meta.classes.insert(p.meta.classes.end(), more.begin(), more.end());
        }
      }
    }
    out->processes.push_back(std::move(p));
  } catch (const Error& e) {
    out->problems.push_back({mpath, 0, std::string("skipped this process: ") + e.what()});
  }
}

// The recording's capture windows, given to each of its processes.
static void AddCaptures(TraceDir* t) {
  try {
    bool found = false;
    CaptureWindows w = ReadCaptures(t->path, &found);
    for (auto& p : t->processes) p.captures = w;
  } catch (const Error& e) {
    t->problems.push_back({t->path + "/" + kCapturesFile, 0,
                           std::string(e.what()) + "; the capture windows are not known"});
  }
}

bool RecordLockHeld(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);  // our own shared lock, if taken, goes with it
  return held;
}

// A recording whose `record` was killed: it began (its loss page is there) and is not running,
// but never wrote tensortrace.json, its last file.
static void CheckFinished(TraceDir* t) {
  const std::string& d = t->path;
  struct stat st;
  if (lstat((d + "/tensortrace.json").c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // Planted where record's last file goes (never opened): the session is not known.
    t->problems.push_back({d + "/tensortrace.json", 0,
                           std::string("it is ") + FileTypeName(st.st_mode) +
                               ", not a regular file: record's session file (the program's "
                               "exit status) is missing"});
    return;
  }
  if (PathExists(d + "/metadata") || !PathExists(d + "/losses")) return;
  if (PathExists(d + "/tensortrace.json")) {
    // Finished: record removed every stream that held no packet, so an empty one lost its
    // events (a thread's stream is created with its first packet).
    for (const auto& p : t->processes)
      for (const auto& s : p.streams)
        if (FileSize(s) == 0)
          t->problems.push_back({s, 0, "empty: the events of this stream are lost"});
    return;
  }
  if (RecordLockHeld(d)) return;
  t->problems.push_back({d + "/tensortrace.json", 0,
                         "incomplete: record did not finish (no tensortrace.json); its "
                         "processes' ends are unknown"});
  // No one will close them now: a process that had not ended is not "running".
  for (auto& p : t->processes)
    if (p.meta.end_state == "running") p.meta.end_state = "unknown";
}

// `record` names a process directory p<pid> (a live recording's may not have its metadata
// yet).
static bool IsProcessDirName(const std::string& name) {
  return name.size() > 1 && name[0] == 'p' &&
         name.find_first_not_of("0123456789", 1) == std::string::npos;
}

// A directory holding a file named like a stream (a process directory that lost its metadata).
static bool HoldsStreams(const std::string& dir) {
  try {
    for (const auto& name : ListDirectory(dir))
      if (IsStreamFile(name) && !IsDirectory(dir + "/" + name)) return true;
  } catch (const Error&) {
  }
  return false;
}

TraceDir OpenTrace(const std::string& path) {
  if (!PathExists(path)) throw Error("no such trace: " + path + " does not exist");
  if (!IsDirectory(path))
    throw Error("not a trace: " + path + " is a file; give the directory `record` wrote");
  TraceDir t;
  t.path = path;
  if (PathExists(path + "/metadata")) {
    AddProcess(path, &t);
  } else {
    for (const auto& name : ListDirectory(path)) {
      std::string sub = path + "/" + name;
      if (!IsDirectory(sub)) continue;
      if (PathExists(sub + "/metadata"))
        AddProcess(sub, &t);
      else if (IsProcessDirName(name) && HoldsStreams(sub) && !RecordLockHeld(path))
        t.problems.push_back(
            {sub + "/metadata", 0, "skipped this process: its metadata file is missing"});
    }
  }
  AddCaptures(&t);
  CheckFinished(&t);
  for (const auto& pr : t.problems) NoteDamage(pr);
  for (auto& p : t.processes) p.recording = path;
  if (t.processes.empty()) {
    if (!t.problems.empty()) throw Error(t.problems.front().ToString());
    throw Error("not a trace: " + path +
                " has no process directory with a CTF metadata file (was it written by "
                "`tensortrace record`?)");
  }
  return t;
}

}  // namespace tt
