#include "format/import/untrusted.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "core/error.h"
#include "core/files.h"

namespace tt {

bool IsRealDirectory(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool EntryExists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

namespace {

Error OverCap(const std::string& path, uint64_t size, uint64_t max_bytes,
              std::string_view cap_name) {
  return Error(ValidUtf8(path) + ": " + std::to_string(size) + " bytes, over the cap of " +
               std::to_string(max_bytes) + " bytes per file (" + std::string(cap_name) +
               "); skipped");
}

}  // namespace

int OpenUntrustedFile(const std::string& path, uint64_t max_bytes, std::string_view cap_name) {
  int fd;
  try {
    fd = OpenRegularFile(path, /*follow_symlinks=*/false);
  } catch (const Error& e) {
    throw Error(ValidUtf8(e.what()) + "; skipped");
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    throw Error("cannot stat " + ValidUtf8(path));
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    close(fd);
    throw OverCap(path, static_cast<uint64_t>(st.st_size), max_bytes, cap_name);
  }
  return fd;
}

std::string ReadUntrustedFile(const std::string& path, uint64_t max_bytes,
                              std::string_view cap_name) {
  int fd = OpenUntrustedFile(path, max_bytes, cap_name);
  struct stat st {};
  fstat(fd, &st);
  auto over = [&](uint64_t size) {
    close(fd);
    return OverCap(path, size, max_bytes, cap_name);
  };
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      throw Error("cannot read " + ValidUtf8(path));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    // A file still growing (the program is still running) is cut at the cap, not followed.
    if (out.size() > max_bytes) throw over(out.size());
  }
  close(fd);
  return out;
}

namespace {

// Length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no surrogates,
// nothing past U+10FFFF), or 0 when the byte there starts none.
size_t Utf8Length(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = at(0);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the allowed range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size() || at(1) < lo || at(1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (at(k) < 0x80 || at(k) > 0xbf) return 0;
  return n;
}

}  // namespace

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t n = Utf8Length(text, i);
    if (n) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned char>(text[i++]));
      out += b;
    }
  }
  return out;
}

}  // namespace tt
