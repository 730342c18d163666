// Small file helpers; they throw tt::Error with the path in the message.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tt {

// Opens an existing regular file for reading, never blocking (a FIFO or a device in its place
// is refused with one line naming it, not waited on). `follow_symlinks` false: a symbolic link
// there is refused too. Returns the descriptor (O_CLOEXEC); throws tt::Error.
int OpenRegularFile(const std::string& path, bool follow_symlinks = true);
// The whole of a regular file (OpenRegularFile).
std::string ReadFile(const std::string& path, bool follow_symlinks = true);

// Every file tensortrace creates is new (O_CREAT|O_EXCL|O_NOFOLLOW: nothing already there,
// a planted symbolic link included, is opened or followed) and mode 0600 whatever the umask;
// every directory 0700. Owner-only by default: traces hold command lines and environments.
constexpr unsigned kFileMode = 0600;
constexpr unsigned kDirMode = 0700;
// Creates the directory `path` (kDirMode whatever the umask). False with errno if mkdir failed.
bool MakeDirectory(const std::string& path);

// A file written under a temporary name beside `path` (created exclusively, kFileMode) and
// renamed into place by Commit(), so readers never see half a file and a failed write leaves
// nothing behind. Every write, the fsync and the close are checked.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);  // throws tt::Error
  ~AtomicFile();                                 // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // All of it, or throws tt::Error. A write that would pass the process's RLIMIT_FSIZE fails
  // with EFBIG ("File too large") before it is made, so it never raises SIGXFSZ: inside a traced
  // program the limit is the program's, and its trace's files must not end it.
  void Write(const char* data, size_t n);
  // Flushes to the disk (`sync`: fsync, which also reports write-back errors such as a full
  // disk that write() did not), closes and renames into place. Throws tt::Error (nothing left
  // behind).
  void Commit(bool sync = true);
  // Gives up: closes and removes the temporary file.
  void Abandon();

 private:
  void ForgetTemporary();
  std::string path_, tmp_;
  int fd_ = -1;
  int slot_ = -1;         // this file's entry in the list RemoveTemporaryFilesOnSignal cleans
  uint64_t written_ = 0;  // bytes written so far (checked against RLIMIT_FSIZE)
  bool direct_ = false;   // `path` is a device or FIFO: written in place, never renamed over
};

// From now on, in this process, AtomicFile writes only regular files: a FIFO, device, socket,
// directory or symbolic link found at a final name (lstat, nothing is opened) is refused with
// one line naming it, never written in place or followed. `record` calls it: everything it
// writes lies in a trace directory that the traced program can write too.
void WriteRegularFilesOnly();

// On SIGTERM, SIGINT or SIGHUP (unless ignored), removes the temporary files of the AtomicFiles
// still open, then ends the process by the same signal. A command that writes its output
// through AtomicFile (export) calls it once at start, so being killed leaves nothing behind.
void RemoveTemporaryFilesOnSignal();

// Writes through AtomicFile (`sync`: see Commit).
void WriteFileAtomic(const std::string& path, const std::string& data, bool sync = true);
bool IsDirectory(const std::string& path);
bool PathExists(const std::string& path);
// Entries of a directory (no "." or ".."), sorted by name.
std::vector<std::string> ListDirectory(const std::string& path);
uint64_t FileSize(const std::string& path);
// "a FIFO", "a directory", "a symbolic link", ... for the st_mode of a file that is not regular.
const char* FileTypeName(unsigned mode);

}  // namespace tt
