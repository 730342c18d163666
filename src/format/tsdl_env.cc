// Reading back the parts of our TSDL metadata that carry data: env, trace uuid, clock.
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "core/error.h"
#include "format/layout.h"
#include "format/metadata.h"

namespace tt {

namespace {

[[noreturn]] void Fail(const std::string& path, size_t line, const std::string& what) {
  throw Error("corrupted metadata: " + path + ": line " + std::to_string(line) + ": " + what +
              " (the trace's metadata file is damaged; re-record or restore it)");
}

// Parses `value;` at s[i..]: a quoted string with \" and \\ escapes, or a bare token.
std::string ParseValue(const std::string& s, size_t i, const std::string& path, size_t line) {
  while (i < s.size() && s[i] == ' ') ++i;
  std::string v;
  if (i < s.size() && s[i] == '"') {
    for (++i; i < s.size() && s[i] != '"'; ++i) {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      v += s[i];
    }
    if (i >= s.size()) Fail(path, line, "unterminated string");
    ++i;
  } else {
    while (i < s.size() && s[i] != ';' && s[i] != ' ') v += s[i++];
    if (v.empty()) Fail(path, line, "missing value");
  }
  while (i < s.size() && s[i] == ' ') ++i;
  if (i >= s.size() || s[i] != ';') Fail(path, line, "expected ';'");
  return v;
}

int64_t ToInt(const std::string& v, const std::string& key, const std::string& path) {
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0)
    throw Error("corrupted metadata: " + path + ": env." + key + " is not an integer: '" + v + "'");
  return x;
}

}  // namespace

std::map<std::string, std::string> ParseTsdlEnv(const std::string& text, const std::string& path) {
  std::map<std::string, std::string> env;
  std::istringstream in(text);
  std::string l;
  size_t line = 0;
  bool inside = false, seen = false;
  while (std::getline(in, l)) {
    ++line;
    if (!inside) {
      if (l.rfind("env {", 0) == 0) inside = seen = true;
      continue;
    }
    if (l == "};") {
      inside = false;
      continue;
    }
    size_t eq = l.find(" = ");
    if (eq == std::string::npos) Fail(path, line, "expected 'key = value;' in env");
    size_t k0 = l.find_first_not_of(' ');
    std::string key = l.substr(k0, eq - k0);
    env[key] = ParseValue(l, eq + 3, path, line);
  }
  if (!seen) Fail(path, line, "no env block");
  if (inside) Fail(path, line, "env block not closed");
  return env;
}

namespace {

using Env = std::map<std::string, std::string>;

// env.`key`, which every trace's metadata has.
const std::string& Required(const Env& env, const char* key, const std::string& path) {
  auto it = env.find(key);
  if (it == env.end()) throw Error("corrupted metadata: " + path + ": env." + key + " missing");
  return it->second;
}

// The layout version of metadata tensortrace wrote; refuses any other tracer's metadata and
// versions this tensortrace cannot read.
int64_t LayoutVersion(const Env& env, const std::string& path) {
  if (Required(env, "tracer_name", path) != "tensortrace")
    Fail(path, 0, "not written by tensortrace");
  const std::string& given = Required(env, "tensortrace_layout", path);
  int64_t version = ToInt(given, "tensortrace_layout", path);
  if (version < layout::kOldestLayoutVersion || version > layout::kLayoutVersion)
    throw Error("unsupported trace layout in " + path + ": version " + given +
                ", this tensortrace reads versions " +
                std::to_string(layout::kOldestLayoutVersion) + " to " +
                std::to_string(layout::kLayoutVersion));
  return version;
}

// The env fields every trace has.
void ReadRequiredFields(const Env& env, const std::string& path, ProcessMeta* m) {
  auto get = [&](const char* k) -> const std::string& { return Required(env, k, path); };
  m->session = get("session");
  m->hostname = get("hostname");
  m->pid = ToInt(get("pid"), "pid", path);
  m->ppid = ToInt(get("ppid"), "ppid", path);
  m->exec_generation =
      static_cast<uint32_t>(ToInt(get("exec_generation"), "exec_generation", path));
  m->cmdline = get("cmdline");
  m->start_realtime_ns = static_cast<uint64_t>(ToInt(get("start_realtime_ns"), "start", path));
  m->offset_start_ns = ToInt(get("realtime_offset_start_ns"), "realtime_offset_start_ns", path);
  m->offset_end_ns = ToInt(get("realtime_offset_end_ns"), "realtime_offset_end_ns", path);
  m->end_state = get("end_state");
  m->end_offset_by = get("end_offset_by");
  m->tracing_error = get("tracing_error");
}

// The env fields written only when known (the rank, the thread hashes, ...).
void ReadOptionalFields(const Env& env, const std::string& path, ProcessMeta* m) {
  if (auto it = env.find("thread_hashes"); it != env.end()) m->thread_hashes = it->second;
  if (auto it = env.find("rank"); it != env.end()) {
    m->rank = ToInt(it->second, "rank", path);
    auto opt = [&](const char* k) {
      auto f = env.find(k);
      return f == env.end() ? int64_t{-1} : ToInt(f->second, k, path);
    };
    m->local_rank = opt("local_rank");
    m->world_size = opt("world_size");
    if (auto src = env.find("rank_source"); src != env.end()) m->rank_source = src->second;
  }
  if (auto it = env.find("job"); it != env.end()) m->job = it->second;
  if (auto it = env.find("truncated_names"); it != env.end())
    m->truncated_names = static_cast<uint64_t>(ToInt(it->second, "truncated_names", path));
  if (auto it = env.find("cpus"); it != env.end())
    m->cpus = static_cast<uint32_t>(ToInt(it->second, "cpus", path));
}

// The trace uuid, and the clock's uuid and offset: one `key = value;` per line in their blocks.
void ReadTraceAndClock(const std::string& text, const std::string& path, ProcessMeta* m) {
  std::istringstream in(text);
  std::string l, block;
  size_t line = 0;
  bool have_uuid = false, have_clock = false;
  int64_t off_s = 0, off = 0;
  while (std::getline(in, l)) {
    ++line;
    if (l.rfind("trace {", 0) == 0)
      block = "trace";
    else if (l.rfind("clock {", 0) == 0)
      block = "clock";
    else if (l.rfind("env {", 0) == 0 || l.rfind("stream {", 0) == 0)
      block = "other";
    else if (l == "};")
      block.clear();
    else if (block == "trace" && l.rfind("  uuid = ", 0) == 0) {
      if (!ParseUuid(ParseValue(l, 9, path, line), &m->trace_uuid)) Fail(path, line, "bad uuid");
      have_uuid = true;
    } else if (block == "clock" && l.rfind("  uuid = ", 0) == 0) {
      m->clock_uuid = ParseValue(l, 9, path, line);
      Uuid u;
      if (!ParseUuid(m->clock_uuid, &u)) Fail(path, line, "bad clock uuid");
      have_clock = true;
    } else if (block == "clock" && l.rfind("  offset_s = ", 0) == 0) {
      off_s = ToInt(ParseValue(l, 13, path, line), "clock.offset_s", path);
    } else if (block == "clock" && l.rfind("  offset = ", 0) == 0) {
      off = ToInt(ParseValue(l, 11, path, line), "clock.offset", path);
    }
  }
  if (!have_uuid) Fail(path, line, "trace uuid missing");
  if (!have_clock) Fail(path, line, "clock block missing");
  if (off < 0 || off >= 1000000000 || off_s > INT64_MAX / 1000000000 - 1 ||
      off_s < INT64_MIN / 1000000000 + 1)
    Fail(path, 0, "clock offset out of range");
  m->clock_offset_ns = off_s * 1000000000 + off;
}

// The stream and fixed event declarations must be exactly what this layout version writes;
// after them come only event class declarations, one line each.
void CheckDeclarations(const std::string& text, const std::string& path, uint32_t version) {
  // The names' enumeration, when the metadata declares one, is part of the declarations.
  std::string names;
  if (size_t e = text.find("\nenum name_t : uint32_t {\n"); e != std::string::npos) {
    size_t end = text.find("\n};\n", e);
    if (end == std::string::npos) Fail(path, 0, "the names' enumeration is not closed");
    names = text.substr(e + 1, end + 4 - (e + 1));
  }
  std::string decl = StreamDeclarations(version, names);
  size_t at = text.find("\ntypealias integer { size = 32; align = 8; signed = false; map");
  if (at == std::string::npos || text.compare(at, decl.size(), decl) != 0)
    Fail(path, 0, "stream or event declarations differ from this version's layout");
  std::istringstream rest(text.substr(at + decl.size()));
  for (std::string l; std::getline(rest, l);) {
    if (version < 3 || l.rfind("event { id = ", 0) != 0 || l.size() < 16 ||
        l.compare(l.size() - 2, 2, "};") != 0)
      Fail(path, 0, "unexpected text after the event declarations: " + l.substr(0, 60));
  }
}

}  // namespace

ProcessMeta ParseMetadata(const std::string& text, const std::string& path) {
  if (text.rfind("/* CTF 1.8 */", 0) != 0) Fail(path, 1, "not CTF 1.8 metadata");
  Env env = ParseTsdlEnv(text, path);
  int64_t version = LayoutVersion(env, path);
  ProcessMeta m;
  ReadRequiredFields(env, path, &m);
  ReadOptionalFields(env, path, &m);
  ReadTraceAndClock(text, path, &m);
  m.layout_version = static_cast<uint32_t>(version);
  CheckDeclarations(text, path, m.layout_version);
  return m;
}

}  // namespace tt
