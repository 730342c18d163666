#include "export/parquet_reuse.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "export/parquet_table.h"

namespace tt::exporter {

namespace fs = std::filesystem;

namespace {

// The per-process tables, linked; the others are the job's.
constexpr const char* kPerProcess[] = {"slices", "steps", "kernels", "allocations", "threads"};
constexpr uintmax_t kHashedBytes = 64 * 1024;

uint64_t Fnv(uint64_t h, std::string_view s) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

bool IsTablesEntry(const fs::path& rel) {
  std::string first = rel.begin()->string();
  return first == "tables" || first.starts_with("tables.tmp");
}

std::string ReadSmall(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Link {
  std::string from, to;
  size_t table;  // index into kPerProcess
};

// A recording of the job: its directory and its processes' pids, and whether the job's clock
// shifts any of them.
struct Recording {
  std::string dir;
  std::set<int64_t> pids;
  int64_t shift = 0;
};

std::vector<Recording> RecordingsOf(const model::TraceModel& m) {
  std::vector<Recording> v;
  for (const model::Process& p : m.processes) {
    auto it = std::find_if(v.begin(), v.end(), [&](auto& r) { return r.dir == p.recording; });
    if (it == v.end()) it = v.insert(v.end(), Recording{p.recording, {}, 0});
    it->pids.insert(p.meta.pid);
    if (p.shift_ns) it->shift = p.shift_ns;
  }
  return v;
}

// The pid of a per-process file, part-PID-N.parquet; -1 for another name.
int64_t PidOfPart(const std::string& name) {
  long long pid = -1;
  return std::sscanf(name.c_str(), "part-%lld-", &pid) == 1 ? pid : -1;
}

// The links of recording r's tables into root, checked; "" when current, else why not.
std::string CheckRecording(const Recording& r, const std::string& root, std::vector<Link>* out) {
  fs::path tables = fs::path(r.dir) / "tables";
  std::string where = tables.string() + " (record --tables) ";
  std::string stamp = ReadSmall(tables / kFingerprintFile);
  while (!stamp.empty() && stamp.back() == '\n') stamp.pop_back();
  if (stamp.empty()) return where + "holds no fingerprint of its trace (an older record)";
  if (stamp != TraceFingerprint(r.dir))
    return where + "is not the tables of this trace (it changed, or was recorded again)";
  if (r.shift)
    return where + "has the recording's own times; the job's clock shifts them by " +
           std::to_string(r.shift) + " ns";
  std::set<int64_t> pids;
  std::error_code ec;
  for (size_t t = 0; t < std::size(kPerProcess); ++t) {
    if (!fs::is_directory(tables / kPerProcess[t], ec)) continue;
    for (const auto& e : fs::recursive_directory_iterator(tables / kPerProcess[t], ec)) {
      if (!e.is_regular_file() || e.path().extension() != ".parquet") continue;
      std::string name = e.path().filename().string();
      if (name != "part-empty.parquet" && !r.pids.count(PidOfPart(name)))
        return where + "holds process " + std::to_string(PidOfPart(name)) +
               ", which this job does not (--pid, --rank)";
      if (t == 0) pids.insert(PidOfPart(name));
      fs::path rel = fs::relative(e.path(), tables);
      out->push_back({e.path().string(), (fs::path(root) / rel).string(), t});
    }
  }
  if (pids != r.pids) return where + "lacks some of the trace's processes";
  return "";
}

}  // namespace

std::string TraceFingerprint(const std::string& dir) {
  std::vector<std::pair<std::string, uintmax_t>> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    fs::path rel = fs::relative(it->path(), dir, ec);
    if (it.depth() == 0 && IsTablesEntry(rel)) {
      it.disable_recursion_pending();
      continue;
    }
    // Links are no part of a trace (cli/trace_dir.cc): not followed.
    if (fs::is_regular_file(it->symlink_status(ec)))
      files.emplace_back(rel.string(), it->file_size(ec));
  }
  std::sort(files.begin(), files.end());
  uint64_t h = 14695981039346656037ull;
  for (const auto& [rel, size] : files) {
    h = Fnv(Fnv(h, rel + '\0'), std::to_string(size) + '\0');
    if (size < kHashedBytes) h = Fnv(h, ReadSmall(fs::path(dir) / rel));
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return "v1 " + std::string(hex) + " " + std::to_string(files.size());
}

bool ReuseRecordedTables(const model::TraceModel& m, const std::string& root, ReusedRows* rows,
                         std::string* why) {
  why->clear();
  std::vector<Recording> recs = RecordingsOf(m);
  std::vector<Link> links;
  size_t with_tables = 0;
  std::error_code ec;
  for (const Recording& r : recs) with_tables += fs::is_directory(fs::path(r.dir) / "tables", ec);
  if (recs.empty() || with_tables == 0) return false;
  for (const Recording& r : recs) {
    if (!fs::is_directory(fs::path(r.dir) / "tables", ec))
      *why = r.dir + " has no tables (record --tables)";
    else
      *why = CheckRecording(r, root, &links);
    if (!why->empty()) return false;
  }
  std::set<std::string> targets;
  std::vector<int64_t> counts(std::size(kPerProcess));
  for (const Link& l : links) {
    ParquetFileInfo info;
    try {
      info = ReadParquetInfo(l.from);
    } catch (const Error& e) {
      *why = e.what();
      return false;
    }
    if (info.version != std::to_string(kTablesSchemaVersion)) {
      *why = l.from + ": tables of schema version " + info.version + ", not " +
             std::to_string(kTablesSchemaVersion);
      return false;
    }
    bool empty_part = fs::path(l.to).filename() == "part-empty.parquet";
    if (!targets.insert(l.to).second && !empty_part) {
      *why = l.to + ": two recordings' tables have this file";
      return false;
    }
    counts[l.table] += info.rows;
  }
  targets.clear();
  for (const Link& l : links) {
    if (!targets.insert(l.to).second) continue;  // a second recording's empty part
    fs::create_directories(fs::path(l.to).parent_path());
    fs::create_hard_link(l.from, l.to, ec);
    if (ec && !fs::copy_file(l.from, l.to, ec))
      throw Error("cannot copy " + l.from + " to " + l.to + ": " + ec.message());
  }
  *rows = {static_cast<uint64_t>(counts[0]), static_cast<uint64_t>(counts[1]),
           static_cast<uint64_t>(counts[2]), static_cast<uint64_t>(counts[3]),
           static_cast<uint64_t>(counts[4]), recs.size()};
  return true;
}

}  // namespace tt::exporter
