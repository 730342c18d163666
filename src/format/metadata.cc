#include "format/metadata.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "core/error.h"
#include "core/files.h"
#include "format/layout.h"

namespace tt {

std::string ReadMetadataFile(const std::string& path) {
  int fd = OpenRegularFile(path, /*follow_symlinks=*/false);
  struct stat st;
  std::string why;
  if (fstat(fd, &st) != 0)
    why = std::strerror(errno);
  else if (static_cast<uint64_t>(st.st_size) > kMaxMetadataBytes)
    why = std::to_string(st.st_size) + " bytes is too large to be CTF metadata (at most " +
          std::to_string(kMaxMetadataBytes) + ")";
  // Stops once past the cap: a file that grew since fstat is refused too.
  std::string out;
  char buf[65536];
  while (why.empty()) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) why = std::strerror(errno);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > kMaxMetadataBytes)
      why = "more than " + std::to_string(kMaxMetadataBytes) +
            " bytes is too large to be CTF metadata";
  }
  close(fd);
  if (!why.empty()) throw Error("cannot read " + path + ": " + why);
  return out;
}

namespace layout {
const char* CategoryName(Category c) {
  static const char* const kNames[] = {"user",          "framework_op", "runtime_api", "gpu_kernel",
                                       "memcpy",        "memset",       "sync",        "allocation",
                                       "communication", "python",       "primitive",   "step"};
  auto i = static_cast<size_t>(c);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "unknown";
}

const char* EventName(uint8_t id) {
  static const char* const kNames[] = {
      "string_def",   "thread_name", "slice_begin", "slice_end",      "slice_begin_args",
      "complete",     "instant",     "counter",     "flow",           "clock_offset",
      "drop_summary", "note",        "source",      "event_class_def"};
  static_assert(sizeof kNames / sizeof kNames[0] == kEventIdCount);
  return id < kEventIdCount ? kNames[id] : "unknown";
}
}  // namespace layout

std::string TsdlQuote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += ' ';  // control characters have no place in a one-line value
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

static const char kTypes[] =
    R"(typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 8; align = 8; signed = true; } := int8_t;
typealias integer { size = 16; align = 8; signed = true; } := int16_t;
typealias integer { size = 32; align = 8; signed = true; } := int32_t;
typealias integer { size = 64; align = 8; signed = true; } := int64_t;
typealias floating_point { exp_dig = 8; mant_dig = 24; align = 8; } := float;
typealias floating_point { exp_dig = 11; mant_dig = 53; align = 8; } := double;
)";

static const char kStream[] = R"(
typealias integer { size = 32; align = 8; signed = false; map = clock.monotonic.value; } := uint32_clock_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;

enum category_t : uint8_t {
  user = 0, framework_op = 1, runtime_api = 2, gpu_kernel = 3, memcpy = 4, memset = 5,
  sync = 6, allocation = 7, communication = 8, python = 9, primitive = 10, step = 11
};

%ARG_T%

stream {
  id = 0;
  event.header := struct {
    enum : uint8_t { compact = 0 ... 254, extended = 255 } id;
    variant <id> {
      struct { uint32_clock_t timestamp; } compact;
      struct { uint16_t id; uint64_clock_t timestamp; } extended;
    } v;
  };
  packet.context := struct {
    uint64_clock_t timestamp_begin;
    uint64_clock_t timestamp_end;
    uint64_t content_size;
    uint64_t packet_size;
    uint64_t packet_seq_num;
    uint64_t events_discarded;
    uint64_t track_id;
    uint32_t pid;
    enum : uint8_t { thread = 0, process = 1, device = 2, imported = 3 } track_kind;
  };
};

event { id = 0; name = "string_def"; stream_id = 0; fields := struct { uint32_t id; string value; }; };
event { id = 1; name = "thread_name"; stream_id = 0; fields := struct { string name; }; };
event { id = 2; name = "slice_begin"; stream_id = 0; fields := struct { uint32_t name; enum category_t category; }; };
event { id = 3; name = "slice_end"; stream_id = 0; };
event { id = 4; name = "slice_begin_args"; stream_id = 0; fields := struct {
  uint32_t name; enum category_t category; uint8_t nargs; struct arg_t args[nargs]; }; };
event { id = 5; name = "complete"; stream_id = 0; fields := struct {
  uint32_t name; enum category_t category; uint64_t duration;
  uint8_t nargs; struct arg_t args[nargs]; }; };
event { id = 6; name = "instant"; stream_id = 0; fields := struct {
  uint32_t name; enum category_t category; uint8_t nargs; struct arg_t args[nargs]; }; };
event { id = 7; name = "counter"; stream_id = 0; fields := struct {
  uint32_t name; enum category_t category; double value; }; };
event { id = 8; name = "flow"; stream_id = 0; fields := struct {
  uint64_t id; enum : uint8_t { out = 0, step = 1, in = 2 } phase; }; };
event { id = 9; name = "clock_offset"; stream_id = 0; fields := struct { string clock_name; int64_t offset_ns; }; };
event { id = 10; name = "drop_summary"; stream_id = 0; fields := struct { string reason; uint64_t count; }; };
event { id = 11; name = "note"; stream_id = 0; fields := struct {
  enum : uint8_t { info = 0, warning = 1, error = 2 } severity; string source; string text; }; };
event { id = 12; name = "source"; stream_id = 0; fields := struct { string name; string detail; }; };
)";

// arg_t as layout versions 1 (four encodings) and 2 and later (nine) declare it.
static const char kArgV1[] = R"(struct arg_t {
  uint32_t key;
  enum : uint8_t { i64 = 0, u64 = 1, f64 = 2, str = 3 } type;
  variant <type> { int64_t i64; uint64_t u64; double f64; uint32_t str; } value;
};)";
static const char kArgV2[] = R"(struct arg_t {
  uint32_t key;
  enum : uint8_t { i64 = 0, u64 = 1, f64 = 2, str = 3, i8 = 4, i16 = 5, i32 = 6, u32 = 7, f32 = 8 } type;
  variant <type> {
    int64_t i64; uint64_t u64; double f64; uint32_t str;
    int8_t i8; int16_t i16; int32_t i32; uint32_t u32; float f32;
  } value;
};)";

// Layout 3's definition of event classes.
static const char kClassDef[] =
    R"(event { id = 13; name = "event_class_def"; stream_id = 0; fields := struct {
  uint16_t id; uint8_t kind; uint32_t name; enum category_t category; uint8_t nargs;
  struct { uint32_t key; enum : uint8_t { i64 = 0, u64 = 1, f64 = 2, str = 3, i8 = 4, i16 = 5, i32 = 6, u32 = 7, f32 = 8 } type; } args[nargs]; }; };
)";

// Replaces every `from` in *s by `to`.
static void ReplaceAll(std::string* s, const std::string& from, const std::string& to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size()))
    s->replace(at, from.size(), to);
}

std::string StreamDeclarations(uint32_t version, const std::string& names_enum) {
  std::string out = kStream;
  out.replace(out.find("%ARG_T%"), 7, version >= 2 ? kArgV2 : kArgV1);
  if (version >= 3) out += kClassDef;
  if (names_enum.empty()) return out;
  // Every field that holds an interned name: events' names, argument keys, string values.
  ReplaceAll(&out, "uint32_t name; enum category_t", "enum name_t name; enum category_t");
  ReplaceAll(&out, "uint32_t key;", "enum name_t key;");
  ReplaceAll(&out, "uint32_t str;", "enum name_t str;");
  size_t after_clock_types = out.find("\n", out.find("uint64_clock_t;")) + 1;
  out.insert(after_clock_types, names_enum);
  return out;
}

// Whether a name can be an enumeration label that every CTF reader takes: printable UTF-8.
static bool LabelOk(const std::string& s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size() || (n == 1 && (c < 0x20 || c == 0x7f))) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    if (n == 2 && c < 0xc2) return false;  // overlong
    i += n;
  }
  return true;
}

std::string NamesEnum(const std::vector<std::string>& names) {
  std::string out;
  for (size_t id = 1; id < names.size(); ++id)
    if (LabelOk(names[id])) out += "  " + TsdlQuote(names[id]) + " = " + std::to_string(id) + ",\n";
  if (out.empty()) return "";
  out.erase(out.size() - 2, 1);  // the last mapping's comma
  return "enum name_t : uint32_t {\n" + out + "};\n";
}

// babeltrace2 (2.0) copies an enumeration into every field that uses it, looking each label up
// among those copied so far: reading the metadata costs about (fields of type name_t) x (names)^2
// label comparisons, some 1.4e8 a second (a Keras fit's 4,418 names in 641 fields: 92 s before
// the first event). Within this budget (a few seconds) every name field is an enumeration;
// past it the classes' string fields stay ids, and past it with the fixed fields alone, all do.
constexpr double kLabelCopyBudget = 5e8;

struct NamedFields {
  std::string names_enum;  // NamesEnum's text, empty: names stay ids
  bool classes = false;    // the classes' string fields use it
};

static size_t Occurrences(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

static NamedFields NameFieldsWithinBudget(const ProcessMeta& m) {
  NamedFields out;
  std::string names = NamesEnum(m.names);
  if (names.empty()) return out;
  double n = static_cast<double>(std::count(names.begin(), names.end(), '\n') - 2);
  std::string fixed = StreamDeclarations(m.layout_version, names);
  // The name fields of the fixed declarations, and struct arg_t's two again in each event
  // that holds one (a copy of the struct); the enumeration's own declaration aside.
  size_t refs =
      Occurrences(fixed, "enum name_t ") - 1 + 2 * Occurrences(fixed, "struct arg_t args");
  size_t class_refs = 0;
  for (const EventClass& c : m.classes)
    for (uint32_t i = 0; i < c.nargs; ++i) class_refs += c.shape[i * layout::kArgHeadSize + 4] == 3;
  if (static_cast<double>(refs) * n * n > kLabelCopyBudget) return out;
  out.names_enum = std::move(names);
  out.classes = static_cast<double>(refs + class_refs) * n * n <= kLabelCopyBudget;
  return out;
}

// A TSDL identifier for an argument key; babeltrace2 shows it without the leading underscore.
static std::string FieldName(const std::string& key, std::vector<std::string>* used) {
  std::string f = "_";
  for (unsigned char c : key) f += std::isalnum(c) ? static_cast<char>(c) : '_';
  if (f == "_") f += "arg";
  std::string base = f;
  for (int k = 2; std::find(used->begin(), used->end(), f) != used->end(); ++k)
    f = base + "_" + std::to_string(k);
  used->push_back(f);
  return f;
}

// One line per class: `event { id; name = "KIND:NAME"; fields }`.
std::string ClassDeclaration(const EventClass& c, bool named) {
  static const char* const kWireTypes[] = {"int64_t", "uint64_t", "double",   "uint32_t", "int8_t",
                                           "int16_t", "int32_t",  "uint32_t", "float"};
  std::ostringstream o;
  o << "event { id = " << c.id
    << "; name = " << TsdlQuote(std::string(layout::EventName(c.kind)) + ":" + c.name_text)
    << "; stream_id = 0;";
  if (c.kind == layout::kSliceBegin) return o.str() + " };\n";  // no fields
  o << " fields := struct {";
  std::vector<std::string> used;
  if (c.kind == layout::kComplete) {
    o << " uint64_t _duration;";
    used.push_back("_duration");
  } else if (c.kind == layout::kCounter) {
    o << " double _value;";
    used.push_back("_value");
  }
  for (uint32_t i = 0; i < c.nargs; ++i) {
    uint8_t w = c.shape[i * layout::kArgHeadSize + 4];
    const std::string& key = i < c.key_texts.size() ? c.key_texts[i] : std::string();
    const char* type = w == 3 && named ? "enum name_t" : kWireTypes[w < 9 ? w : 0];
    o << " " << type << " " << FieldName(key, &used) << ";";
  }
  o << " }; };\n";
  return o.str();
}

std::string GenerateMetadata(const ProcessMeta& m) {
  std::ostringstream o;
  o << "/* CTF 1.8 */\n\n" << kTypes << "\n";
  o << "trace {\n  major = 1;\n  minor = 8;\n  uuid = \"" << UuidToString(m.trace_uuid)
    << "\";\n  byte_order = le;\n"
    << "  packet.header := struct {\n    uint32_t magic;\n    uint8_t uuid[16];\n"
    << "    uint32_t stream_id;\n    uint64_t stream_instance_id;\n  };\n};\n\n";
  o << "env {\n"
    << "  tracer_name = \"tensortrace\";\n"
    << "  tensortrace_layout = " << m.layout_version << ";\n"
    << "  session = " << TsdlQuote(m.session) << ";\n"
    << "  hostname = " << TsdlQuote(m.hostname) << ";\n"
    << "  pid = " << m.pid << ";\n"
    << "  ppid = " << m.ppid << ";\n"
    << "  exec_generation = " << m.exec_generation << ";\n"
    << "  cmdline = " << TsdlQuote(m.cmdline) << ";\n"
    << "  start_realtime_ns = " << m.start_realtime_ns << ";\n"
    << "  realtime_offset_start_ns = " << m.offset_start_ns << ";\n"
    << "  realtime_offset_end_ns = " << m.offset_end_ns << ";\n"
    << "  end_state = " << TsdlQuote(m.end_state) << ";\n"
    << "  end_offset_by = " << TsdlQuote(m.end_offset_by) << ";\n"
    << "  tracing_error = " << TsdlQuote(m.tracing_error) << ";\n";
  if (!m.thread_hashes.empty()) o << "  thread_hashes = " << TsdlQuote(m.thread_hashes) << ";\n";
  if (m.rank >= 0)
    o << "  rank = " << m.rank << ";\n  local_rank = " << m.local_rank
      << ";\n  world_size = " << m.world_size << ";\n  rank_source = " << TsdlQuote(m.rank_source)
      << ";\n";
  if (!m.job.empty()) o << "  job = " << TsdlQuote(m.job) << ";\n";
  if (m.truncated_names) o << "  truncated_names = " << m.truncated_names << ";\n";
  if (m.cpus) o << "  cpus = " << m.cpus << ";\n";
  o << "};\n\n";
  int64_t off_s = m.clock_offset_ns / 1000000000;
  int64_t off_ns = m.clock_offset_ns % 1000000000;
  if (off_ns < 0) {
    off_ns += 1000000000;
    off_s -= 1;
  }
  o << "clock {\n  name = \"monotonic\";\n  uuid = \"" << m.clock_uuid << "\";\n"
    << "  description = \"CLOCK_MONOTONIC\";\n  freq = 1000000000;\n  precision = 1;\n"
    << "  offset_s = " << off_s << ";\n  offset = " << off_ns << ";\n  absolute = FALSE;\n};\n";
  NamedFields named = NameFieldsWithinBudget(m);
  o << StreamDeclarations(m.layout_version, named.names_enum);
  for (const EventClass& c : m.classes) o << ClassDeclaration(c, named.classes);
  return o.str();
}

}  // namespace tt
