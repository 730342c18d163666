#include "format/reader.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/files.h"
#include "format/live_read.h"

namespace tt {

using namespace layout;

std::string Problem::ToString() const {
  return file + ": offset " + std::to_string(offset) + ": " + what;
}

static std::mutex g_damage_mu;
static std::vector<DamageKind>* g_damage = new std::vector<DamageKind>;  // never freed

void NoteDamage(const Problem& p) {
  std::lock_guard<std::mutex> lock(g_damage_mu);
  for (auto& k : *g_damage)
    if (k.first.file == p.file && k.what == p.what) {
      ++k.count;
      return;
    }
  if (g_damage->size() < 1000) g_damage->push_back({p.what, p, 1});
}

std::vector<DamageKind> NotedDamage() {
  std::lock_guard<std::mutex> lock(g_damage_mu);
  return *g_damage;
}

// Stream files are copied, not mapped (live_read.h).
static bool g_copy_streams = false;

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
      // block). (An empty stream file is not damage: a thread that wrote nothing.)
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
    if (g_copy_streams)
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
  if (PathExists(d + "/metadata") || !PathExists(d + "/losses") ||
      PathExists(d + "/tensortrace.json") || RecordLockHeld(d))
    return;
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

Arg RawEvent::ArgAt(uint32_t i) const {
  Arg a;
  ArgCursor c{args, shape};
  for (uint32_t k = 0; k <= i; ++k) c.Next(&a);
  return a;
}

// Length of a NUL-terminated string at p (including the NUL), or 0 if none before end.
static uint64_t StrSize(const uint8_t* p, const uint8_t* end) {
  const void* z = std::memchr(p, 0, static_cast<size_t>(end - p));
  return z ? static_cast<uint64_t>(static_cast<const uint8_t*>(z) - p) + 1 : 0;
}

static uint64_t ArgsSizeAt(const uint8_t* p, const uint8_t* end) {
  if (p >= end) return 0;
  uint64_t n = *p, s = 1;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t a = EncodedArgSize(p + s, static_cast<uint64_t>(end - p) - s);
    if (!a) return 0;
    s += a;
  }
  return s;
}

uint64_t PayloadSize(uint8_t id, const uint8_t* p, const uint8_t* end) {
  auto fixed = [&](uint64_t n) -> uint64_t { return static_cast<uint64_t>(end - p) >= n ? n : 0; };
  auto cat_ok = [&](uint64_t at) { return p[at] < static_cast<uint8_t>(Category::kCount); };
  uint64_t a, b, c;
  switch (id) {
    case kStringDef:
      if (!fixed(4)) return 0;
      a = StrSize(p + 4, end);
      return a ? 4 + a : 0;
    case kThreadName:
      return StrSize(p, end);
    case kSliceBegin:
      return fixed(5) && cat_ok(4) ? 5 : 0;
    case kSliceEnd:
      return 0;
    case kSliceBeginArgs:
    case kInstant:
      if (!fixed(5) || !cat_ok(4)) return 0;
      a = ArgsSizeAt(p + 5, end);
      return a ? 5 + a : 0;
    case kComplete:
      if (!fixed(13) || !cat_ok(4)) return 0;
      a = ArgsSizeAt(p + 13, end);
      return a ? 13 + a : 0;
    case kCounter:
      return fixed(13) && cat_ok(4) ? 13 : 0;
    case kFlow:
      return fixed(9) && p[8] <= 2 ? 9 : 0;
    case kClockOffset:
      a = StrSize(p, end);
      return a && static_cast<uint64_t>(end - p) >= a + 8 ? a + 8 : 0;
    case kDropSummary:
      a = StrSize(p, end);
      return a && static_cast<uint64_t>(end - p) >= a + 8 ? a + 8 : 0;
    case kNote:
      if (!fixed(1) || p[0] > 2) return 0;
      b = StrSize(p + 1, end);
      if (!b) return 0;
      c = StrSize(p + 1 + b, end);
      return c ? 1 + b + c : 0;
    case kSource:
      a = StrSize(p, end);
      if (!a) return 0;
      b = StrSize(p + a, end);
      return b ? a + b : 0;
    case kEventClassDef:
      return ClassDefSize(p, end);
    default:
      return 0;
  }
}

namespace {
StreamReadHooks& Hooks() {
  static StreamReadHooks hooks;
  return hooks;
}
}  // namespace

void SetStreamReadHooks(StreamReadHooks hooks) { Hooks() = std::move(hooks); }

namespace {

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// The runtime commits an event by storing its packet's timestamp_end, then its content_size
// (format/writer.h, Commit). A copy reads the header in address order, timestamp_end first, so
// it may hold a newer content_size than timestamp_end, and the last event would look out of its
// packet: each packet's timestamp_end is read again once the copy is made (it only grows).
void RefreshPacketEnds(int fd, int mem, uint64_t size) {
  uint64_t off = 0;
  uint8_t head[kPacketHeaderSize];
  while (off + kPacketHeaderSize <= size &&
         pread(mem, head, sizeof head, static_cast<off_t>(off)) == sizeof head &&
         Load<uint32_t>(head + kOffMagic) == kMagic) {
    uint64_t psize = Load<uint64_t>(head + kOffPacketSize) / 8;
    uint8_t ts[8];
    if (psize < kPacketHeaderSize || pread(fd, ts, 8, static_cast<off_t>(off + kOffTsEnd)) != 8 ||
        pwrite(mem, ts, 8, static_cast<off_t>(off + kOffTsEnd)) != 8)
      break;
    off += psize;
  }
}

// A copy of the first *size bytes of `fd` in a memfd, which replaces it (fd is closed). The
// file may shrink meanwhile: the copy ends where the reads did (*size says where). The copy is
// a file, so that the decoders' MADV_DONTNEED drops pages that fault back in (in an anonymous
// mapping they would read as zeros). Returns -1 (fd closed) when no copy can be made.
int CopyToMemory(int fd, uint64_t* size) {
  int mem = memfd_create("tt-stream", MFD_CLOEXEC);
  std::vector<char> buf(mem >= 0 ? 1u << 20 : 0);
  uint64_t done = 0;
  while (mem >= 0 && done < *size) {
    ssize_t n = pread(fd, buf.data(), std::min<uint64_t>(buf.size(), *size - done),
                      static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (!WriteAll(mem, buf.data(), static_cast<size_t>(n))) {
      close(mem);
      mem = -1;
    }
    done += static_cast<uint64_t>(n);
  }
  if (mem >= 0) RefreshPacketEnds(fd, mem, done);
  close(fd);
  *size = done;
  return mem;
}
}  // namespace

void SetStreamFilesCopied(bool copied) { g_copy_streams = copied; }

MappedStream::MappedStream(const std::string& path) : path_(path) {
  if (Hooks().opened) Hooks().opened(path);
  int fd = -1;
  try {
    fd = OpenRegularFile(path, /*follow_symlinks=*/false);
  } catch (const Error& e) {
    error_ = e.what();
    return;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) st.st_size = 0;
  if (st.st_size > 0 && g_copy_streams) {
    uint64_t n = static_cast<uint64_t>(st.st_size);
    fd = CopyToMemory(fd, &n);
    if (fd < 0) {
      error_ = std::string("cannot copy: ") + std::strerror(errno);
      return;
    }
    st.st_size = static_cast<off_t>(n);
  }
  if (st.st_size > 0) {
    size_ = static_cast<uint64_t>(st.st_size);
    void* m = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      error_ = std::string("cannot map: ") + std::strerror(errno);
      size_ = 0;
    } else {
      data_ = static_cast<const uint8_t*>(m);
      madvise(m, size_, MADV_SEQUENTIAL);
    }
  }
  close(fd);
}

MappedStream::~MappedStream() {
  if (data_) munmap(const_cast<uint8_t*>(data_), size_);
}

std::shared_ptr<const MappedStream> StreamFiles::Get(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& f = files_[path];
  if (!f) f = std::make_shared<MappedStream>(path);
  return f;
}

StreamDecoder::StreamDecoder(const std::string& path, const ProcessMeta& meta,
                             std::vector<Problem>* problems)
    : StreamDecoder(std::make_shared<MappedStream>(path), meta, problems) {}

StreamDecoder::StreamDecoder(std::shared_ptr<const MappedStream> file, const ProcessMeta& meta,
                             std::vector<Problem>* problems)
    : file_(std::move(file)), path_(file_->path()), uuid_(meta.trace_uuid), problems_(problems) {
  if (Hooks().decoded) Hooks().decoded(path_);
  for (const EventClass& c : meta.classes)
    if (c.id >= kFirstClassId && c.id <= kLastClassId) classes_[c.id - kFirstClassId] = &c;
  if (!file_->error().empty()) {
    Report(0, file_->error());
    done_ = true;
    return;
  }
  data_ = file_->data();
  size_ = file_->size();
  if (!data_) {
    done_ = true;  // an empty stream file holds no events
    return;
  }
  Window(0);
}

// What this decoder populated and has not released yet is released: the mapping may live on
// (StreamFiles) while nothing reads it.
StreamDecoder::~StreamDecoder() {
  if (data_ && populated_ > released_)
    madvise(const_cast<uint8_t*>(data_) + released_, populated_ - released_, MADV_DONTNEED);
}

void StreamDecoder::Report(uint64_t off, const std::string& what) {
  NoteDamage({path_, off, what});
  if (problems_) problems_->push_back({path_, off, what});
}

// The file is read through a window: the next kWindow bytes are populated in one call (instead
// of a fault per page), and what lies more than a window behind is released, so the memory
// mapped in stays bounded however large the file. Released pages that are read again (an open
// slice's arguments) simply fault back in from the page cache.
void StreamDecoder::Window(uint64_t pos) {
  constexpr uint64_t kWindow = 32ull << 20;
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
  if (pos + kWindow / 2 >= populated_ && populated_ < size_) {
    uint64_t start = populated_ & ~uint64_t{4095};
    uint64_t end = std::min(size_, populated_ + kWindow);
    madvise(const_cast<uint8_t*>(data_) + start, end - start, MADV_POPULATE_READ);
    populated_ = end;
  }
  if (pos > released_ + 2 * kWindow) {
    uint64_t end = (pos - kWindow) & ~uint64_t{4095};
    madvise(const_cast<uint8_t*>(data_) + released_, end - released_, MADV_DONTNEED);
    released_ = end;
  }
}

bool StreamDecoder::EnterPacket() {
  uint64_t off = packet_end_;
  if (off >= size_) return false;
  Window(off);
  uint64_t left = size_ - off;
  if (left < kPacketHeaderSize) {
    Report(off, "truncated packet header (" + std::to_string(left) + " bytes); rest skipped");
    return false;
  }
  const uint8_t* p = data_ + off;
  if (Load<uint32_t>(p + kOffMagic) != kMagic) {
    Report(off, "bad packet magic; rest of the stream skipped");
    return false;
  }
  if (std::memcmp(p + kOffUuid, uuid_.data(), 16) != 0) {
    Report(off, "packet belongs to another trace (uuid differs); rest skipped");
    return false;
  }
  uint64_t psize = Load<uint64_t>(p + kOffPacketSize), csize = Load<uint64_t>(p + kOffContentSize);
  if (psize % 8 || csize % 8 || psize / 8 < kPacketHeaderSize || csize > psize ||
      csize / 8 < kPacketHeaderSize || Load<uint32_t>(p + kOffStreamId) != 0 ||
      p[kOffTrackKind] > 3) {
    Report(off, "corrupted packet context; rest of the stream skipped");
    return false;
  }
  uint64_t pbytes = psize / 8, cbytes = csize / 8;
  if (pbytes > left) {
    if (cbytes > left) {
      Report(off, "truncated: packet of " + std::to_string(pbytes) + " bytes, file has " +
                      std::to_string(left) + "; its events past the end are lost");
      cbytes = left;
    } else {
      Report(off, "truncated: packet of " + std::to_string(pbytes) + " bytes, file has " +
                      std::to_string(left) + " (all its events are there)");
    }
    pbytes = left;
  }
  uint64_t ts_begin = Load<uint64_t>(p + kOffTsBegin);
  if (header_.packets > 0 && ts_begin < clock_) {
    Report(off, "packet starts before the previous one ended; rest skipped");
    return false;
  }
  header_.instance = Load<uint64_t>(p + kOffStreamInstance);
  header_.kind = static_cast<TrackKind>(p[kOffTrackKind]);
  header_.track_id = Load<uint64_t>(p + kOffTrackId);
  header_.pid = Load<uint32_t>(p + kOffPid);
  header_.discarded = Load<uint64_t>(p + kOffDiscarded);
  header_.packets++;
  packet_ = off;
  packet_end_ = off + pbytes;
  content_end_ = off + cbytes;
  pos_ = off + kPacketHeaderSize;
  clock_ = ts_begin;
  ts_end_ = Load<uint64_t>(p + kOffTsEnd);
  return true;
}

namespace {

// An event header: the event's id (a class's, from an extended header), its time and the
// header's size.
struct EventHead {
  uint8_t id = 0;
  uint64_t ts = 0;
  uint64_t size = 0;
};

// The header of the event at p (p < end); false where it does not fit before `end` or its id
// names no event. A compact header holds the low 32 bits of the time: the high ones are the
// clock's, one more where the low ones wrapped around.
bool ReadEventHead(const uint8_t* p, const uint8_t* end, uint64_t clock, EventHead* h) {
  if (p[0] == kExtendedId) {
    if (end - p < kExtendedHeaderSize) return false;
    uint16_t wide = Load<uint16_t>(p + 1);
    if (wide > kLastClassId) return false;
    h->id = static_cast<uint8_t>(wide);
    h->ts = Load<uint64_t>(p + 3);
    h->size = kExtendedHeaderSize;
  } else {
    if (end - p < kCompactHeaderSize) return false;
    uint32_t low = Load<uint32_t>(p + 1);
    h->id = p[0];
    h->ts = (clock & ~uint64_t{0xffffffff}) | low;
    if (low < static_cast<uint32_t>(clock)) h->ts += uint64_t{1} << 32;
    h->size = kCompactHeaderSize;
  }
  return h->id < kEventIdCount || h->id >= kFirstClassId;
}

// The event of class `c` whose payload starts at f: its kind, name and category are the
// class's, its fixed fields and argument values are read from the payload. False (nothing set)
// where the class is not defined or the payload does not fit before `end`.
bool DecodeClassEvent(const EventClass* c, const uint8_t* f, const uint8_t* end, RawEvent* ev,
                      uint64_t* size) {
  if (!c || static_cast<uint64_t>(end - f) < c->size) return false;
  ev->id = c->kind;
  ev->name = c->name;
  ev->category = c->category;
  if (c->kind == kComplete) ev->duration = Load<uint64_t>(f);
  if (c->kind == kCounter) ev->value = Load<double>(f);
  ev->nargs = c->nargs;
  ev->args = f + ClassFixedSize(c->kind);
  ev->shape = c->shape;
  *size = c->size;
  return true;
}

std::string_view CString(const uint8_t* s) {
  return std::string_view(reinterpret_cast<const char*>(s));
}

// The fields of a fixed event of kind `id` from its payload f (PayloadSize checked it); the
// fields its kind does not have keep their values.
void SetFixedEventFields(uint8_t id, const uint8_t* f, RawEvent* ev) {
  switch (id) {
    case kStringDef:
      ev->name = Load<uint32_t>(f);
      ev->s1 = CString(f + 4);
      break;
    case kThreadName:
      ev->s1 = CString(f);
      break;
    case kSliceBegin:
      ev->name = Load<uint32_t>(f);
      ev->category = static_cast<Category>(f[4]);
      break;
    case kSliceBeginArgs:
    case kInstant:
      ev->name = Load<uint32_t>(f);
      ev->category = static_cast<Category>(f[4]);
      ev->nargs = f[5];
      ev->args = f + 6;
      break;
    case kComplete:
      ev->name = Load<uint32_t>(f);
      ev->category = static_cast<Category>(f[4]);
      ev->duration = Load<uint64_t>(f + 5);
      ev->nargs = f[13];
      ev->args = f + 14;
      break;
    case kCounter:
      ev->name = Load<uint32_t>(f);
      ev->category = static_cast<Category>(f[4]);
      ev->value = Load<double>(f + 5);
      break;
    case kFlow:
      ev->u64 = Load<uint64_t>(f);
      ev->small = f[8];
      break;
    case kClockOffset:
      ev->s1 = CString(f);
      ev->i64 = Load<int64_t>(f + ev->s1.size() + 1);
      break;
    case kDropSummary:
      ev->s1 = CString(f);
      ev->u64 = Load<uint64_t>(f + ev->s1.size() + 1);
      break;
    case kNote:
      ev->small = f[0];
      ev->s1 = CString(f + 1);
      ev->s2 = CString(f + 2 + ev->s1.size());
      break;
    case kSource:
      ev->s1 = CString(f);
      ev->s2 = CString(f + ev->s1.size() + 1);
      break;
    case kEventClassDef:
      ev->args = f;  // the definition, for ParseClassDef
      break;
    default:
      break;
  }
}

// A fixed event (not of a class) of kind `id` whose payload starts at f. False (nothing set)
// where the payload is damaged or does not fit before `end`.
bool DecodeFixedEvent(uint8_t id, const uint8_t* f, const uint8_t* end, RawEvent* ev,
                      uint64_t* size) {
  uint64_t n = PayloadSize(id, f, end);
  if (n == 0 && id != kSliceEnd) return false;
  ev->nargs = 0;  // the fields each kind sets are set below; the rest keep old values
  ev->shape = nullptr;
  ev->id = id;
  SetFixedEventFields(id, f, ev);
  *size = n;
  return true;
}

}  // namespace

bool StreamDecoder::Next(RawEvent* ev) {
  while (!done_) {
    if (!in_packet_) {
      if (!EnterPacket()) {
        done_ = true;
        return false;
      }
      in_packet_ = true;
    }
    if (pos_ >= content_end_) {
      in_packet_ = false;
      continue;
    }
    const uint8_t* p = data_ + pos_;
    const uint8_t* end = data_ + content_end_;
    EventHead h;
    uint64_t n = 0;
    // Every event lies between its packet's timestamp_begin and timestamp_end: a damaged
    // timestamp that still decodes is caught here, before it pushes the clock forward.
    bool ok = ReadEventHead(p, end, clock_, &h) && h.ts >= clock_ && h.ts <= ts_end_ &&
              (h.id >= kFirstClassId
                   ? DecodeClassEvent(classes_[h.id - kFirstClassId], p + h.size, end, ev, &n)
                   : DecodeFixedEvent(h.id, p + h.size, end, ev, &n));
    if (!ok) {
      Report(pos_, "corrupted event (id " + std::to_string(data_[pos_]) +
                       "); rest of this packet skipped");
      in_packet_ = false;
      continue;
    }
    clock_ = h.ts;
    ev->ts = h.ts;
    ev->offset = pos_;
    pos_ += h.size + n;
    return true;
  }
  return false;
}

}  // namespace tt
