#include "cli/trace_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
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

// xspace/<pid>/: what the framework profiler wrote (plugins/; PyTorch's torch/), the capture
// and import summaries and the TensorFlow graphs, their ops' costs and the Keras or Flax
// parameters the bootstrap saved (tf_graph.tsv, tf_op_cost.tsv, params.tsv), with the temporary
// names the bootstrap and record write them under.
std::string XSpaceDirProblem(const std::string& dir) {
  static const std::regex kPid("[0-9]+");
  static const std::regex kEntry(
      R"(\.?capture\.json(\.tmp)?|import\.json(\.tmp.*)?|\.?(tf_graph|tf_op_cost|params)\.tsv(\.tmp)?)");
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

// tables/ (record --tables): a Parquet dataset, TABLE/rank=R/part-*.parquet (clocks:
// TABLE/part-0.parquet) and _trace (the trace's fingerprint, export/parquet_reuse.h);
// tables.tmpN/ while it is written.
std::string TablesDirProblem(const std::string& dir, int depth = 0) {
  static const std::regex kPart(R"(part-[0-9a-z-]+\.parquet)");
  for (const auto& n : ListDirectory(dir)) {
    std::string p = dir + "/" + n;
    char k = Kind(p);
    bool ok = (k == 'd' && depth < 2) || (k == 'f' && depth > 0 && std::regex_match(n, kPart)) ||
              (k == 'f' && depth == 0 && n == "_trace");
    if (!ok) return p + " is not part of the trace's tables";
    if (k == 'd')
      if (std::string why = TablesDirProblem(p, depth + 1); !why.empty()) return why;
  }
  return "";
}

}  // namespace

std::string TraceEntryProblem(const std::string& dir) {
  static const std::regex kProcess(R"(p[0-9]+(\.[0-9]+)?)");
  static const std::regex kJson(R"((tensortrace|hardware)\.json(\.tmp.*)?|losses)");
  for (const auto& n : ListDirectory(dir)) {
    std::string p = dir + "/" + n;
    char k = Kind(p);
    std::string why;
    if (k == 'f' && std::regex_match(n, kJson)) continue;
    if (k == 'd' && std::regex_match(n, kProcess))
      why = ProcessDirProblem(p);
    else if (k == 'd' && n == "xspace")
      why = XSpaceDirProblem(p);
    else if (k == 'd' && std::regex_match(n, std::regex(R"(tables(\.tmp[0-9]+)?)")))
      why = TablesDirProblem(p);
    else
      why = p + " is not part of a trace";
    if (!why.empty()) return why;
  }
  return "";
}

namespace {

// Creates `dir` owner-only, its parents as the user's umask makes them; nothing when it is
// there already (another recording may just have made it: the lock decides).
void CreateTraceDir(const std::string& dir) {
  std::error_code ec;
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  std::filesystem::path parent = std::filesystem::path(d).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec || (!MakeDirectory(d) && errno != EEXIST))
    throw Error("record: cannot create output directory " + dir + ": " +
                (ec ? ec.message() : std::strerror(errno)));
}

// Opens the directory itself (never through a link), checks that it is ours, makes it
// owner-only and locks it; returns the descriptor that holds the lock.
int OpenAndLock(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && (errno == ENOTDIR || errno == ELOOP))
    throw Error("record: output " + dir + " exists and is not a directory");
  if (fd < 0)
    throw Error("record: cannot open output directory " + dir + ": " + std::strerror(errno));
  struct stat st;
  std::string why;
  // Another user's directory (a shared /tmp) could hold links or files planted for us.
  if (fstat(fd, &st) != 0 || st.st_uid != geteuid())
    why = " belongs to another user; choose a directory of your own with -o";
  // Ours but open to others (0777): no one else may add anything to the trace from now on.
  else if ((st.st_mode & 07777) != kDirMode && fchmod(fd, kDirMode) != 0)
    why = std::string(": cannot make it owner-only: ") + std::strerror(errno);
  else if (flock(fd, LOCK_EX | LOCK_NB) != 0)
    why = errno == EWOULDBLOCK ? " is in use by another recording (tensortrace record); wait "
                                 "for it to end or choose another -o"
                               : std::string(": cannot lock it: ") + std::strerror(errno);
  if (!why.empty()) {
    close(fd);
    throw Error("record: output directory " + dir + why);
  }
  return fd;
}

// Owner-only modes for the entries of the open directory `dfd`, and below (`depth` levels
// at most); links are left as they are.
void PrivateEntries(int dfd, int depth) {
  int own = dup(dfd);
  DIR* d = own >= 0 ? fdopendir(own) : nullptr;
  if (!d) {
    if (own >= 0) close(own);
    return;
  }
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    struct stat st;
    if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISLNK(st.st_mode)) continue;
    bool dir = S_ISDIR(st.st_mode);
    unsigned want = dir ? kDirMode : kFileMode;
    if ((st.st_mode & 07777) != want) fchmodat(dfd, e->d_name, want, 0);
    if (!dir || depth <= 0) continue;
    int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    PrivateEntries(sub, depth - 1);
    close(sub);
  }
  closedir(d);
}

}  // namespace

int PrepareTraceDir(const std::string& dir, bool force) {
  CreateTraceDir(dir);
  int fd = OpenAndLock(dir);
  try {
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
    if (access(dir.c_str(), W_OK) != 0)
      throw Error("record: output directory " + dir + " is not writable");
  } catch (...) {
    close(fd);
    throw;
  }
  return fd;
}

void MakeTreePrivate(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  PrivateEntries(fd, 64);
  close(fd);
}

}  // namespace tt::cli
