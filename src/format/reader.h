// Reader of tensortrace trace directories: finds the per-process CTF traces, checks their
// metadata, and decodes stream files event by event. Damage is reported as Problems and the
// rest of the trace is still read.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "format/captures.h"
#include "format/layout.h"
#include "format/metadata.h"
#include "format/writer.h"

namespace tt {

struct Problem {
  std::string file;
  uint64_t offset = 0;
  std::string what;
  std::string ToString() const;
};

// Every Problem met in this process (by OpenTrace and by every StreamDecoder) is also kept
// here, so that a command reports damage the same way whichever analysis met it: the cli
// prints one line per kind of problem and exits with the damage status (see README).
struct DamageKind {
  std::string what;  // the problem's text
  Problem first;     // where it was first met
  uint64_t count = 0;  // the places (offsets) it was met at; a place read again is not counted
  std::set<uint64_t> places;  // those offsets (the first 4096)
};
void NoteDamage(const Problem& p);
// The problems noted so far, one entry per distinct (file, what), in the order first met.
std::vector<DamageKind> NotedDamage();

// True while a `record` runs into the recording directory `dir`: it holds a lock on the
// directory itself (tested without blocking, nothing is kept).
bool RecordLockHeld(const std::string& dir);

// One stream file, opened and mapped read-only once; every decoder made from it reads through
// this mapping (no open of its own). Pages are populated and released by the decoders as they
// read (StreamDecoder::Window), so the memory a long-lived mapping holds stays bounded.
class MappedStream {
 public:
  explicit MappedStream(const std::string& path);
  ~MappedStream();
  MappedStream(const MappedStream&) = delete;
  MappedStream& operator=(const MappedStream&) = delete;
  const std::string& path() const { return path_; }
  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  const std::string& error() const { return error_; }  // why it could not be read ("": none)

 private:
  std::string path_, error_;
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// The stream files of one trace, each opened and mapped on its first use and kept while the
// trace is open, so that a command opens each stream file once however many passes read it.
// Safe to use from several threads.
class StreamFiles {
 public:
  std::shared_ptr<const MappedStream> Get(const std::string& path);

 private:
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const MappedStream>> files_;
};

// What tests count, process-wide: `opened` is told the path of each stream file as it is opened
// (a MappedStream), `decoded` as a decoder starts reading it (a StreamDecoder, which may stop
// early). Called from the readers' threads; set them only while no trace is being read.
struct StreamReadHooks {
  std::function<void(const std::string&)> opened, decoded;
};
void SetStreamReadHooks(StreamReadHooks hooks);

struct ProcessTrace {
  std::string dir;        // the CTF trace directory of one process image
  std::string recording;  // the trace directory OpenTrace was given (one recording)
  ProcessMeta meta;
  std::vector<std::string> streams;  // full paths of its stream files
  // record --on-demand / --every: the recording's capture windows (format/captures.h); no
  // event lies between two. Empty: recorded whole.
  CaptureWindows captures;
};

struct TraceDir {
  std::string path;
  std::vector<ProcessTrace> processes;
  std::vector<Problem> problems;  // process directories that could not be used, and why
  // The stream files, opened once for every reader of this trace (OpenTrace's own reading of
  // the process streams, the model, the inventory, every scan).
  std::shared_ptr<StreamFiles> files = std::make_shared<StreamFiles>();
};

// Opens a trace directory made by `record` (or one process's directory). Throws tt::Error
// when `path` is missing or holds no tensortrace trace at all.
TraceDir OpenTrace(const std::string& path);

// One decoded event. String fields point into the mapped file and live as long as the decoder.
// Only the fields of its kind are set (see Next); the others keep earlier values.
struct RawEvent {
  uint8_t id = 0;
  uint64_t ts = 0;
  uint64_t offset = 0;  // byte offset of the event in its file
  uint32_t name = 0;    // interned id (slices, instants, counters) or string_def's id
  layout::Category category = layout::Category::kUser;
  uint64_t duration = 0;
  double value = 0;
  uint64_t u64 = 0;   // flow id, drop count
  int64_t i64 = 0;    // clock offset
  uint8_t small = 0;  // flow phase, note severity
  std::string_view s1, s2, s3;
  uint8_t nargs = 0;
  const uint8_t* args = nullptr;
  // Null: the arguments describe themselves. Else the event has a class, `args` holds only
  // the values and `shape` each argument's key and encoding (see ArgCursor).
  const uint8_t* shape = nullptr;
  Arg ArgAt(uint32_t i) const;  // decodes argument i (i < nargs); O(i)
};

// What the packet contexts of one stream say.
struct StreamHeader {
  uint64_t instance = 0;
  layout::TrackKind kind = layout::TrackKind::kThread;
  uint64_t track_id = 0;
  uint32_t pid = 0;
  uint64_t discarded = 0;  // the last packet's cumulative count
  uint64_t packets = 0;
};

class StreamDecoder {
 public:
  // Maps the file; problems (damage) are appended to *problems as they are met. `meta` (its
  // uuid, its event classes) must outlive the decoder.
  StreamDecoder(const std::string& path, const ProcessMeta& meta, std::vector<Problem>* problems);
  // Reads through a mapping that may be shared with other decoders (StreamFiles).
  StreamDecoder(std::shared_ptr<const MappedStream> file, const ProcessMeta& meta,
                std::vector<Problem>* problems);
  ~StreamDecoder();
  StreamDecoder(const StreamDecoder&) = delete;
  StreamDecoder& operator=(const StreamDecoder&) = delete;

  // Next event in file order (time order); false at the end or where the damage starts.
  bool Next(RawEvent* ev);
  const StreamHeader& header() const { return header_; }
  uint64_t file_size() const { return size_; }

 private:
  bool EnterPacket();
  void Window(uint64_t pos);
  void Report(uint64_t off, const std::string& what);

  std::shared_ptr<const MappedStream> file_;
  std::string path_;
  Uuid uuid_;
  std::vector<Problem>* problems_;
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t packet_ = 0;       // offset of the current packet
  uint64_t packet_end_ = 0;   // offset of the next packet
  uint64_t content_end_ = 0;  // end of the current packet's events
  uint64_t pos_ = 0;
  uint64_t populated_ = 0, released_ = 0;  // see Window()
  uint64_t clock_ = 0;
  uint64_t ts_end_ = 0;  // the packet's timestamp_end
  bool in_packet_ = false;
  bool done_ = false;
  StreamHeader header_;
  const EventClass* classes_[layout::kLastClassId - layout::kFirstClassId + 1] = {};
};

// The size in bytes of the event starting at p (given its id after the header), or 0 if the
// event does not fit before `end` or its fields are invalid.
uint64_t PayloadSize(uint8_t id, const uint8_t* p, const uint8_t* end);

}  // namespace tt
