// Process metadata and the TSDL text that describes one process's CTF trace.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "core/ids.h"
#include "format/event_class.h"

namespace tt {

// What a trace knows about the process that wrote it; stored in the TSDL `env` block.
struct ProcessMeta {
  uint32_t layout_version = layout::kLayoutVersion;  // env.tensortrace_layout
  Uuid trace_uuid{};
  std::string clock_uuid;       // the boot id: monotonic clocks compare within one boot
  int64_t clock_offset_ns = 0;  // session-wide realtime - monotonic; the CTF clock offset
  int64_t pid = 0;
  int64_t ppid = 0;
  uint32_t exec_generation = 0;  // 0 for the first image of a pid, +1 per exec()
  std::string hostname;
  // The CPUs the process could run on when it started (its affinity mask); 0: not known (a
  // trace from before this field). Replay's CPU sharing reads it. Written when known.
  uint32_t cpus = 0;
  std::string cmdline;
  std::string session;  // id shared by every process of one `record`
  uint64_t start_realtime_ns = 0;
  int64_t offset_start_ns = 0;        // realtime - monotonic measured at process start
  int64_t offset_end_ns = 0;          // ... and at its end (0 while running)
  std::string end_state = "running";  // running | exited | finalised
  std::string end_offset_by;          // "process" or "record" (a process that died mid-write)
  std::string tracing_error;          // set when an internal error disabled tracing
  // "hash=tid,..." for the traced threads: std::hash<std::thread::id> (how TensorFlow's
  // profiler names host lines) -> tid. Written at exit, left out of the metadata when empty.
  std::string thread_hashes;
  // The process's rank in a distributed job, from its launcher's environment (format/launcher.h);
  // -1 where none was given. Written only when given.
  int64_t rank = -1, local_rank = -1, world_size = -1;
  std::string rank_source;
  // The job, as its launcher names it (format/launcher.h JobFromEnvironment: "torchrun=ID
  // rendezvous=HOST:PORT ..."), so that the recordings of different jobs are not read as one;
  // "" where no launcher named it. Written only when known.
  std::string job;
  // Names longer than the runtime's limit (4096 bytes), cut to it; written at exit, left out
  // of the metadata when 0.
  uint64_t truncated_names = 0;
  // The event classes the process defined (its process stream's event_class_defs, by id);
  // declared as events of the metadata after the fixed ones. Not parsed from the metadata:
  // the reader takes them from the process stream.
  std::vector<EventClass> classes;
  // The process's interned names by id (from its process streams' string_defs), when known:
  // GenerateMetadata declares them as an enumeration (name_t) that every name field uses, so
  // CTF readers (babeltrace2, Trace Compass) show each name as text. Not parsed from the
  // metadata: the reader takes names from the process streams.
  std::vector<std::string> names;
};

// The complete TSDL metadata for `meta`, in its layout version.
std::string GenerateMetadata(const ProcessMeta& meta);
// The stream, type and fixed event declarations of a layout version (what follows `clock`);
// with `names_enum` (NamesEnum's text, empty: none) it comes first and the name fields use it.
std::string StreamDeclarations(uint32_t version, const std::string& names_enum = "");
// The declaration (one line) of an event class, as GenerateMetadata writes it.
std::string ClassDeclaration(const EventClass& c, bool named = false);
// The `enum name_t` declaration of these names (one mapping per line); empty when none of
// them can be a label (empty, or not printable UTF-8: those stay numbers).
std::string NamesEnum(const std::vector<std::string>& names);

// The largest metadata file a reader takes in (64 MiB): a process's TSDL with every name it
// interned declared is a few MiB at most.
inline constexpr uint64_t kMaxMetadataBytes = 64ull << 20;
// The text of the metadata file at `path`: a regular file, not a link (OpenRegularFile), of at
// most kMaxMetadataBytes, its size checked before anything is read. Throws tt::Error with one
// line naming `path` (a larger file: "too large to be CTF metadata").
std::string ReadMetadataFile(const std::string& path);

// Parses metadata this code generated. Throws tt::Error naming `path` and the line on failure.
ProcessMeta ParseMetadata(const std::string& text, const std::string& path);

// Parses the `env { ... };` block of TSDL text into key -> raw value (strings unescaped).
// Throws tt::Error with the line number on malformed input.
std::map<std::string, std::string> ParseTsdlEnv(const std::string& text, const std::string& path);

std::string TsdlQuote(const std::string& s);

}  // namespace tt
