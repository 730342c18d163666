// Reading what a traced program left in its trace directory (framework profiles, capture.json):
// the program may have put anything there, so it is read as untrusted input. Only regular files
// are read, never through a symbolic link, and each within a size cap; only real directories are
// entered; text that may hold invalid UTF-8 (file names) is made valid before it reaches JSON.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace tt {

// The default cap on one file that `record` reads back (`record --import-max-size`): 1 GiB.
// Parsing an XSpace takes several times its size in memory.
constexpr uint64_t kImportMaxBytes = uint64_t{1} << 30;

// True when `path` is a directory itself, not a symbolic link to one.
bool IsRealDirectory(const std::string& path);

// True when something (a symbolic link included, even a dangling one) is at `path`.
bool EntryExists(const std::string& path);

// The whole of the regular file at `path`, opened without following a symbolic link and never
// blocking. Throws tt::Error with one line naming the file: a link, FIFO, device or directory
// there, or a size over `max_bytes` (the line names the cap and `cap_name`, the option that
// sets it).
std::string ReadUntrustedFile(const std::string& path, uint64_t max_bytes,
                              std::string_view cap_name = "record --import-max-size");

// The same checks, the file left open (a descriptor) for a reader that streams it.
int OpenUntrustedFile(const std::string& path, uint64_t max_bytes,
                      std::string_view cap_name = "record --import-max-size");

// `text` with every byte that is not part of valid UTF-8 written as the four characters \xNN,
// so that it is valid UTF-8 (and valid in JSON and CTF text) and still shows what was there.
std::string ValidUtf8(std::string_view text);

// A table the bootstrap left in the trace (tab-separated lines), parsed by `parse(text, &bad)`
// (T's rows, `bad` counting lines it could not take); T{} where no file is at `path`. A file
// that cannot be read is one line in `errors` with `unread` after it ("; replay infers ..."),
// lines skipped one line naming `shape`, the form each line must have.
template <typename T, typename Parse>
T ReadUntrustedTable(const std::string& path, uint64_t max_bytes,
                     std::vector<std::string>* errors, Parse parse, std::string_view unread,
                     std::string_view shape) {
  if (!EntryExists(path)) return {};
  std::string text;
  try {
    text = ReadUntrustedFile(path, max_bytes);
  } catch (const Error& e) {
    errors->push_back(std::string(e.what()) + std::string(unread));
    return {};
  }
  size_t bad = 0;
  T out = parse(text, &bad);
  if (bad)
    errors->push_back(ValidUtf8(path) + ": " + std::to_string(bad) + " line(s) not " +
                      std::string(shape) + "; skipped");
  return out;
}

}  // namespace tt
