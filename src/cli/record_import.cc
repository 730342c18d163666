// `record`'s import of the profiles its processes' frameworks wrote (record_import.h).
#include "cli/record_import.h"

#include <charconv>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/args.h"
#include "core/error.h"
#include "core/files.h"
#include "format/import/importer.h"
#include "format/import/untrusted.h"

namespace tt::cli {

namespace {

bool ParseInt(std::string_view s, int64_t* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// capture.json (written by the Python bootstrap) may be absent; what it says that matters
// here is the steps filter and a failed capture's message. Read as untrusted (the program wrote
// it): a link, FIFO or oversized file, or bytes that are not UTF-8 JSON, are one error line.
void ReadCapture(const std::string& logdir, uint64_t max_bytes,
                 std::optional<ImportStepFilter>* steps, std::vector<std::string>* errors) {
  std::string path = logdir + "/capture.json";
  if (!EntryExists(path)) return;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ReadUntrustedFile(path, max_bytes));
  } catch (const std::exception& e) {
    errors->push_back(ValidUtf8(path) + ": unreadable (" + ValidUtf8(e.what()) +
                      "); imported without its settings");
    return;
  }
  if (!j.is_object()) return;
  if (auto it = j.find("steps"); it != j.end() && it->is_string()) {
    std::string s = *it;
    size_t c = s.find(':');
    ImportStepFilter f;
    if (c == std::string::npos ||
        (c > 0 && !ParseInt(std::string_view(s).substr(0, c), &f.first)) ||
        (c + 1 < s.size() && !ParseInt(std::string_view(s).substr(c + 1), &f.last)))
      errors->push_back(path + ": steps \"" + s + "\" is not A:B; all steps imported");
    else
      *steps = f;
  }
  auto status = j.find("status");
  if (status != j.end() && status->is_string()) {
    std::string st = *status;
    if (st.find("error") != std::string::npos || st.find("fail") != std::string::npos) {
      auto msg = j.find("message");
      errors->push_back("capture " + st + ": " +
                        (msg != j.end() && msg->is_string() ? msg->get<std::string>() : ""));
    }
  }
}

// The first importer that finds files in `logdir`, run; never throws.
ImportResult RunImporters(const std::string& dir, const std::string& logdir, int64_t pid,
                          const ImportLimits& limits, std::vector<std::string>* early) {
  ImportRequest req{dir, pid, logdir, {}, std::nullopt, limits.file_bytes, limits.memory};
  ReadCapture(logdir, limits.file_bytes, &req.steps, early);
  std::string none;
  for (const Importer* imp : Importers()) {
    req.files = imp->find(logdir, early);
    if (!req.files.empty()) return imp->run(req, early);
    none += (none.empty() ? "no " : " and no ") + imp->looked_for(logdir);
  }
  ImportResult r;
  r.errors.push_back(none);
  return r;
}

// Imports one xspace/<pid>/ (a real directory of the trace); never throws.
ImportResult ImportOne(const std::string& dir, const std::string& logdir, int64_t pid,
                       const ImportLimits& limits) {
  ImportResult r;
  std::vector<std::string> early;
  try {
    r = RunImporters(dir, logdir, pid, limits, &early);
  } catch (const std::exception& e) {
    r.errors.push_back(ValidUtf8(e.what()));
  }
  r.errors.insert(r.errors.begin(), early.begin(), early.end());
  nlohmann::json j = {{"files", r.files},  {"events", r.events}, {"tracks", r.tracks},
                      {"steps", r.steps},  {"flows", r.flows},   {"windows", r.windows},
                      {"errors", r.errors}};
  try {
    // `replace`: a stray invalid byte must cost a character, not the whole file.
    WriteFileAtomic(logdir + "/import.json",
                    j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } catch (const std::exception& e) {
    r.errors.push_back(ValidUtf8(e.what()));
  }
  return r;
}

// The one line `record` prints for the profile of process `pid`.
void PrintResult(int64_t pid, const ImportResult& r) {
  std::cerr << "tensortrace: " << (r.format.empty() ? "profile" : r.format) << " of process " << pid
            << ": ";
  if (r.files)
    std::cerr << r.files << (r.files == 1 ? " file, " : " files, ") << r.events << " events on "
              << r.tracks << " tracks, " << r.steps << " step events";
  else
    std::cerr << "nothing imported";
  if (!r.errors.empty())
    std::cerr << (r.errors.size() == 1
                      ? "; error: "
                      : "; errors (first of " + std::to_string(r.errors.size()) + "): ")
              << TerminalSafe(r.errors.front());
  std::cerr << "\n";
}

}  // namespace

void ImportCapturedProfiles(const std::string& dir, bool quiet, const ImportLimits& limits) {
  // xspace/ and xspace/<pid>/ are the traced program's work: a symbolic link there (out of the
  // trace) is neither read nor written through.
  std::string root = dir + "/xspace";
  if (!IsRealDirectory(root)) {
    if (EntryExists(root) && !quiet)
      std::cerr << "tensortrace: " << TerminalSafe(root)
                << " is not a directory (a symbolic link?); no XSpace imported\n";
    return;
  }
  std::vector<std::string> names;
  try {
    names = ListDirectory(root);
  } catch (const std::exception& e) {
    if (!quiet) std::cerr << "tensortrace: " << TerminalSafe(ValidUtf8(e.what())) << "\n";
    return;
  }
  // One line per profile, up to kLines: a program may leave thousands of folders there.
  constexpr size_t kLines = 20;
  size_t shown = 0, more = 0, more_imported = 0;
  for (const auto& name : names) {
    std::string logdir = root + "/" + name;
    int64_t pid;
    if (!ParseInt(name, &pid)) continue;
    ImportResult r;
    if (IsRealDirectory(logdir)) {
      r = ImportOne(dir, logdir, pid, limits);
    } else {
      r.errors.push_back(logdir + " is not a directory (a symbolic link?); not read or written");
    }
    if (quiet) continue;
    if (shown < kLines) {
      PrintResult(pid, r);
      ++shown;
    } else {
      ++more;
      more_imported += r.files > 0;
    }
  }
  if (more)
    std::cerr << "tensortrace: " << more << " more profile folder(s) under " << TerminalSafe(root)
              << " (" << more_imported
              << " with a profile imported; each folder's import.json says what it held)\n";
}

}  // namespace tt::cli
