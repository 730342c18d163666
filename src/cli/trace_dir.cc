#include "cli/trace_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>

#include "core/error.h"
#include "core/files.h"

namespace tt::cli {
namespace {

// What lstat says `path` is: 'f' regular file, 'd' directory, 0 anything else (links included).
char Kind(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return 0;
  return S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : 0;
}

// A process directory p<pid>[.N]: its metadata and streams (thread t, process proc, device d,
// imported XSpace x, xa, xd, xspace and Kineto k, ka, kd, kineto; ".N" when a name is reused),
// and temporary files of their writes.
std::string ProcessDirProblem(const std::string& dir) {
  static const std::regex kEntry(
      R"((metadata|(proc|t|d|x|xa|xd|xspace|k|ka|kd|kineto)[0-9]*(\.[0-9]+)?)(\.tmp.*)?)");
  for (const auto& n : ListDirectory(dir)) {
    std::string p = dir + "/" + n;
    if (Kind(p) != 'f' || !std::regex_match(n, kEntry)) return p + " is not a trace file";
  }
  return "";
}

// xspace/<pid>/: what the framework profiler wrote (plugins/; PyTorch's torch/), and the capture
// and import summaries (with the temporary names the bootstrap and record write them under).
std::string XSpaceDirProblem(const std::string& dir) {
  static const std::regex kPid("[0-9]+");
  static const std::regex kEntry(R"(\.?capture\.json(\.tmp)?|import\.json(\.tmp.*)?)");
  for (const auto& pid : ListDirectory(dir)) {
    std::string pd = dir + "/" + pid;
    if (Kind(pd) != 'd' || !std::regex_match(pid, kPid)) return pd + " is not a profiler capture";
    for (const auto& n : ListDirectory(pd)) {
      std::string p = pd + "/" + n;
      bool ok = n == "plugins" || n == "torch" ? Kind(p) == 'd'
                                               : Kind(p) == 'f' && std::regex_match(n, kEntry);
      if (!ok) return p + " is not part of a profiler capture";
    }
  }
  return "";
}

}  // namespace

std::string TraceEntryProblem(const std::string& dir) {
  static const std::regex kProcess(R"(p[0-9]+(\.[0-9]+)?)");
  static const std::regex kJson(R"(tensortrace\.json(\.tmp.*)?|losses)");
  for (const auto& n : ListDirectory(dir)) {
    std::string p = dir + "/" + n;
    char k = Kind(p);
    std::string why;
    if (k == 'f' && std::regex_match(n, kJson)) continue;
    if (k == 'd' && std::regex_match(n, kProcess))
      why = ProcessDirProblem(p);
    else if (k == 'd' && n == "xspace")
      why = XSpaceDirProblem(p);
    else
      why = p + " is not part of a trace";
    if (!why.empty()) return why;
  }
  return "";
}

void PrepareTraceDir(const std::string& dir, bool force) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) {
    // Parents as the user's umask makes them; the trace directory itself owner-only.
    std::error_code ec;
    std::string d = dir;
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    std::filesystem::path parent = std::filesystem::path(d).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec || !MakeDirectory(d))
      throw Error("record: cannot create output directory " + dir + ": " +
                  (ec ? ec.message() : std::strerror(errno)));
  } else {
    if (!S_ISDIR(st.st_mode))
      throw Error("record: output " + dir + " exists and is not a directory");
    // Another user's directory (a shared /tmp) could hold links or files planted for us.
    if (st.st_uid != geteuid())
      throw Error("record: output directory " + dir +
                  " belongs to another user; choose a directory of your own with -o");
    if (!ListDirectory(dir).empty()) {
      if (!force)
        throw Error("record: output directory " + dir +
                    " is not empty; choose another -o, or add --force to replace the trace there");
      std::string why = TraceEntryProblem(dir);
      if (!why.empty())
        throw Error("record: --force replaces only a trace, and " + why +
                    "; remove it or choose another -o");
      for (const auto& n : ListDirectory(dir)) std::filesystem::remove_all(dir + "/" + n);
    }
  }
  if (access(dir.c_str(), W_OK) != 0)
    throw Error("record: output directory " + dir + " is not writable");
}

}  // namespace tt::cli
