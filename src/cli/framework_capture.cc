// Reads the capture.json / import.json pairs that record leaves under DIR/xspace/<pid>/.
#include "cli/framework_capture.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "core/error.h"
#include "format/import/untrusted.h"

namespace tt::cli {

namespace {

namespace fs = std::filesystem;

// These JSON files are small; a larger one is not theirs.
constexpr uint64_t kMaxJsonBytes = 16 << 20;

// Parses a JSON object file; on failure returns null and adds one line to `problems`. The
// traced program could have left anything there (a FIFO, a link, a huge file): read as
// untrusted, never blocking.
nlohmann::json ReadObject(const fs::path& p, std::vector<std::string>* problems) {
  if (!EntryExists(p.string())) return nullptr;
  std::string text;
  try {
    text = ReadUntrustedFile(p.string(), kMaxJsonBytes, "a capture's JSON file");
  } catch (const Error& e) {
    problems->push_back(e.what());
    return nullptr;
  }
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    problems->push_back(ValidUtf8(p.string()) +
                        ": not a JSON object; the capture's details are unknown");
    return nullptr;
  }
  return j;
}

template <typename T>
T Get(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.is_object() || !j.contains(key)) return fallback;
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

}  // namespace

std::vector<FrameworkCapture> LoadFrameworkCaptures(const std::string& trace_dir) {
  std::vector<FrameworkCapture> out;
  fs::path root = fs::path(trace_dir) / "xspace";
  std::error_code ec;
  if (!IsRealDirectory(root.string())) return out;  // a link there leads out of the trace
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory(ec) || e.is_symlink(ec) || name.empty() ||
        !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    FrameworkCapture c;
    auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), c.pid);
    if (err != std::errc() || end != name.data() + name.size()) continue;  // not a pid
    c.dir = e.path().string();
    c.capture = ReadObject(e.path() / "capture.json", &c.problems);
    c.import = ReadObject(e.path() / "import.json", &c.problems);
    for (auto it = fs::recursive_directory_iterator(e.path(), ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string f = it->path().filename().string();
      if (it->symlink_status(ec).type() == fs::file_type::regular && f.size() > 10 &&
          f.ends_with(".xplane.pb"))
        ++c.xplane_files;
    }
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.pid < b.pid; });
  return out;
}

nlohmann::json FrameworkCaptureJson(const FrameworkCapture& c) {
  nlohmann::json j = {
      {"pid", c.pid},
      {"dir", c.dir},
      {"framework", Get<std::string>(c.capture, "framework", "")},
      {"version", Get<std::string>(c.capture, "version", "")},
      {"status", c.capture.is_null() ? "unknown" : Get<std::string>(c.capture, "status", "")},
      {"message", Get<std::string>(c.capture, "message", "")},
      {"windows", Get<int64_t>(c.capture, "windows", 0)},
      {"xplane_files", c.xplane_files},
      {"capture", c.capture},
      {"import", c.import},
      {"problems", c.problems},
  };
  return j;
}

std::string FrameworkCaptureText(const FrameworkCapture& c) {
  std::string s;
  if (c.capture.is_null()) {
    s += "  framework  (no readable capture.json in " + c.dir + ")\n";
  } else {
    int64_t windows = Get<int64_t>(c.capture, "windows", 0);
    std::string framework = Get<std::string>(c.capture, "framework", "?");
    // PyTorch's capture is Kineto's JSON (its host level does not apply).
    std::string files = framework == "torch"
                            ? "Kineto JSON"
                            : std::to_string(c.xplane_files) + " XSpace file(s), host level " +
                                  std::to_string(Get<int64_t>(c.capture, "host_tracer_level", 0));
    s += "  framework  " + framework + " " + Get<std::string>(c.capture, "version", "?") + ": " +
         Get<std::string>(c.capture, "status", "?") + ", " + std::to_string(windows) +
         (windows == 1 ? " window, " : " windows, ") + files +
         (Get<bool>(c.capture, "python_tracer", false) ? ", Python tracer" : "");
    if (auto steps = Get<std::string>(c.capture, "steps", ""); !steps.empty())
      s += ", steps " + steps;
    if (auto msg = Get<std::string>(c.capture, "message", ""); !msg.empty()) s += " (" + msg + ")";
    s += "\n";
  }
  if (c.import.is_null()) {
    s += "  imported   nothing (no import.json)\n";
  } else {
    auto errors = Get<std::vector<std::string>>(c.import, "errors", {});
    s += "  imported   " + std::to_string(Get<int64_t>(c.import, "files", 0)) + " file(s), " +
         std::to_string(Get<int64_t>(c.import, "events", 0)) + " events, " +
         std::to_string(Get<int64_t>(c.import, "tracks", 0)) + " tracks, " +
         std::to_string(Get<int64_t>(c.import, "steps", 0)) + " step events, " +
         std::to_string(errors.size()) + " error(s)\n";
    for (const auto& e : errors) s += "  import error: " + e + "\n";
  }
  for (const auto& p : c.problems) s += "  unreadable " + p + "\n";
  return s;
}

}  // namespace tt::cli
