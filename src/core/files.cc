#include "core/files.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace tt {

static std::string Errno(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// Closes fd keeping errno.
static void CloseKeep(int fd) {
  int e = errno;
  close(fd);
  errno = e;
}

const char* FileTypeName(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFLNK:
      return "a symbolic link";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    default:
      return "not a regular file";
  }
}

int OpenRegularFile(const std::string& path, bool follow_symlinks) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer; the fstat below refuses it.
  int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (follow_symlinks ? 0 : O_NOFOLLOW);
  int fd = open(path.c_str(), flags);
  if (fd < 0 && errno == ELOOP && !follow_symlinks)
    throw Error("cannot read " + path + ": it is a symbolic link, not a regular file");
  if (fd < 0) throw Error(Errno("cannot open", path));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    CloseKeep(fd);
    throw Error(Errno("cannot stat", path));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    throw Error("cannot read " + path + ": it is " + FileTypeName(st.st_mode) +
                ", not a regular file");
  }
  // Reads of a regular file never block; plain blocking mode keeps read()'s usual meaning.
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string ReadFile(const std::string& path, bool follow_symlinks) {
  int fd = OpenRegularFile(path, follow_symlinks);
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      CloseKeep(fd);
      throw Error(Errno("cannot read", path));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

bool MakeDirectory(const std::string& path) {
  if (mkdir(path.c_str(), kDirMode) != 0) return false;
  // mkdir's mode passes through the umask; the directory is ours, so set it exactly.
  chmod(path.c_str(), kDirMode);
  return true;
}

namespace {

std::atomic<bool> g_regular_only{false};

// The temporary files of open AtomicFiles, for a signal handler to remove: a slot is claimed
// (0 -> 1), its name written, then published (1 -> 2); the handler unlinks published names.
constexpr int kTempSlots = 32;
constexpr size_t kTempNameMax = 4096;
struct TempSlot {
  std::atomic<int> state{0};
  char name[kTempNameMax];
};
TempSlot g_temps[kTempSlots];

int RegisterTemporary(const std::string& name) {
  if (name.size() >= kTempNameMax) return -1;
  for (int i = 0; i < kTempSlots; ++i) {
    int free = 0;
    if (!g_temps[i].state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(g_temps[i].name, name.c_str(), name.size() + 1);
    g_temps[i].state.store(2);
    return i;
  }
  return -1;  // more than kTempSlots at once: that one is not removed on a signal
}

// `n` letters and digits from the kernel's random source (a temporary file's name).
std::string RandomName(size_t n) {
  static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char bytes[32];
  n = std::min(n, sizeof bytes);
  size_t got = 0;
  while (got < n) {
    ssize_t k = getrandom(bytes + got, n - got, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) throw Error(Errno("cannot read random bytes", "getrandom"));
    got += static_cast<size_t>(k);
  }
  std::string out;
  for (size_t i = 0; i < n; ++i) out += kChars[bytes[i] % (sizeof kChars - 1)];
  return out;
}

void OnFatalSignal(int sig) {
  for (auto& t : g_temps)
    if (t.state.load() == 2) unlink(t.name);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void WriteRegularFilesOnly() { g_regular_only.store(true); }

void RemoveTemporaryFilesOnSignal() {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = OnFatalSignal;
    sigfillset(&sa.sa_mask);  // one handler at a time
    sigaction(sig, &sa, nullptr);
  }
}

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  struct stat st;
  if (g_regular_only.load()) {
    // Nothing at the final name is opened: a FIFO would block, a link would lead elsewhere.
    if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      throw Error("cannot write " + path + ": it is " + FileTypeName(st.st_mode) +
                  ", not a regular file");
  } else if (stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    // A device or FIFO named as the output (/dev/stdout, /dev/null) is written in place:
    // renaming a file over it would replace the device node.
    fd_ = open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) throw Error(Errno("cannot open", path));
    direct_ = true;
    return;
  }
  // A new file (O_EXCL, so no link is followed) under a name no one can guess, published for
  // the signal handler before it exists: a signal between the two then removes nothing, where
  // creating first left the file behind when a SIGTERM came before it was published.
  for (int tries = 0;; ++tries) {
    std::string name = path + ".tmp" + std::to_string(getpid()) + "." + RandomName(6);
    slot_ = RegisterTemporary(name);
    fd_ = open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd_ >= 0) {
      tmp_ = name;
      break;
    }
    int e = errno;
    ForgetTemporary();
    errno = e;
    if (e != EEXIST || tries == 100) throw Error(Errno("cannot create", path));
  }
  fchmod(fd_, kFileMode);  // whatever the umask
}

AtomicFile::~AtomicFile() { Abandon(); }

void AtomicFile::ForgetTemporary() {
  if (slot_ >= 0) g_temps[slot_].state.store(0);
  slot_ = -1;
  tmp_.clear();
}

void AtomicFile::Abandon() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) unlink(tmp_.c_str());
  ForgetTemporary();
}

// Whether a regular file of `end` bytes would pass RLIMIT_FSIZE (errno EFBIG then).
static bool BeyondFileSizeLimit(uint64_t end) {
  struct rlimit r;
  if (getrlimit(RLIMIT_FSIZE, &r) != 0 || r.rlim_cur == RLIM_INFINITY || end <= r.rlim_cur)
    return false;
  errno = EFBIG;
  return true;
}

void AtomicFile::Write(const char* data, size_t n) {
  if (!direct_ && BeyondFileSizeLimit(written_ + n)) {
    std::string msg = Errno("cannot write", path_);
    Abandon();
    throw Error(msg);
  }
  written_ += n;
  size_t off = 0;
  while (off < n) {
    ssize_t k = write(fd_, data + off, n - off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = ENOSPC;
      std::string msg = Errno("cannot write", path_);
      Abandon();
      throw Error(msg);
    }
    off += static_cast<size_t>(k);
  }
}

void AtomicFile::Commit(bool sync) {
  // fsync reports the write-back errors (a full disk, NFS) that write() may not have; a
  // device or FIFO has nothing to sync.
  int rc = direct_ || !sync ? 0 : fsync(fd_);
  int e = errno;
  if (close(fd_) != 0 && rc == 0) {
    rc = -1;
    e = errno;
  }
  fd_ = -1;
  if (rc == 0 && !direct_ && rename(tmp_.c_str(), path_.c_str()) != 0) {
    rc = -1;
    e = errno;
  }
  if (rc != 0) {
    errno = e;
    std::string msg = Errno("cannot write", path_);
    Abandon();
    throw Error(msg);
  }
  ForgetTemporary();
}

void WriteFileAtomic(const std::string& path, const std::string& data, bool sync) {
  AtomicFile f(path);
  f.Write(data.data(), data.size());
  f.Commit(sync);
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool PathExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::vector<std::string> ListDirectory(const std::string& path) {
  DIR* d = opendir(path.c_str());
  if (!d) throw Error(Errno("cannot list", path));
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

uint64_t FileSize(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) throw Error(Errno("cannot stat", path));
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace tt
