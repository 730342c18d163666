#include "cli/xspace_finalise.h"

#include <charconv>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/error.h"
#include "core/files.h"
#include "format/import/xspace/import.h"

namespace tt::cli {

namespace {

bool ParseInt(std::string_view s, int64_t* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// capture.json (written by the Python bootstrap) may be absent; what it says that matters
// here is the steps filter and a failed capture's message.
void ReadCapture(const std::string& logdir, std::optional<XSpaceStepFilter>* steps,
                 std::vector<std::string>* errors) {
  std::string path = logdir + "/capture.json";
  if (!PathExists(path)) return;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ReadFile(path));
  } catch (const std::exception& e) {
    errors->push_back(path + ": unreadable (" + e.what() + "); imported without its settings");
    return;
  }
  if (!j.is_object()) return;
  if (auto it = j.find("steps"); it != j.end() && it->is_string()) {
    std::string s = *it;
    size_t c = s.find(':');
    XSpaceStepFilter f;
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

}  // namespace

void ImportCapturedXSpace(const std::string& dir, bool quiet) {
  std::string root = dir + "/xspace";
  if (!IsDirectory(root)) return;
  for (const auto& name : ListDirectory(root)) {
    std::string logdir = root + "/" + name;
    int64_t pid;
    if (!IsDirectory(logdir) || !ParseInt(name, &pid)) continue;
    XSpaceImport r;
    std::optional<XSpaceStepFilter> steps;
    std::vector<std::string> early;
    try {
      ReadCapture(logdir, &steps, &early);
      std::vector<std::string> files = FindXSpaceFiles(logdir);
      if (files.empty()) {
        r.errors.push_back("no .xplane.pb file under " + logdir + "/plugins/profile");
      } else {
        r = ImportXSpace(dir, pid, files, steps);
      }
    } catch (const std::exception& e) {
      r.errors.push_back(e.what());
    }
    r.errors.insert(r.errors.begin(), early.begin(), early.end());
    nlohmann::json j = {{"files", r.files}, {"events", r.events},   {"tracks", r.tracks},
                        {"steps", r.steps}, {"windows", r.windows}, {"errors", r.errors}};
    try {
      WriteFileAtomic(logdir + "/import.json", j.dump(2) + "\n");
    } catch (const Error& e) {
      r.errors.push_back(e.what());
    }
    if (quiet) continue;
    std::cerr << "tensortrace: XSpace of process " << pid << ": ";
    if (r.files)
      std::cerr << r.files << (r.files == 1 ? " file, " : " files, ") << r.events << " events on "
                << r.tracks << " tracks, " << r.steps << " step events";
    else
      std::cerr << "nothing imported";
    if (!r.errors.empty())
      std::cerr << (r.errors.size() == 1
                        ? "; error: "
                        : "; errors (first of " + std::to_string(r.errors.size()) + "): ")
                << r.errors.front();
    std::cerr << "\n";
  }
}

}  // namespace tt::cli
