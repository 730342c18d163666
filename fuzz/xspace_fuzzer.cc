// libFuzzer target for record's XSpace import (format/import/xspace/): the input is the bytes of
// an .xplane.pb that a traced program left in its trace directory, imported into a process of a
// fixed trace with ImportXSpace, as `record` does. Bad input may only ever become an entry in
// the import's errors or a tt::Error; any other exception, a crash, a hang or a sanitizer report
// is a bug. What the importer wrote must then read back cleanly: every stream it added decodes
// with no problem reported (the importer writes our own format, so damage there is its bug).
// An input whose length is odd is imported with the step filter 1:2, an even one without.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "format/import/xspace/import.h"
#include "format/metadata.h"
#include "format/reader.h"

namespace {

// The fixed process's start (Unix epoch ns): the importer keeps events within a year of it,
// so fuzz/xspace_seed.textproto sets its lines' times near it.
constexpr uint64_t kStartNs = 1700000000000000000;

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "xspace_fuzzer: %s: %s\n", what, std::strerror(errno));
  std::abort();
}

std::string g_root, g_proc, g_input, g_metadata_text;

void WriteAll(const std::string& path, const void* data, size_t size) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) Die(path.c_str());
  const char* p = static_cast<const char*>(data);
  for (size_t off = 0; off < size;) {
    ssize_t n = write(fd, p + off, size - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Die(path.c_str());
    off += static_cast<size_t>(n);
  }
  if (close(fd) != 0) Die(path.c_str());
}

// Back to the fixed trace: its metadata alone (an import adds streams and may rewrite it).
void Reset() {
  DIR* d = opendir(g_proc.c_str());
  if (!d) Die(g_proc.c_str());
  std::vector<std::string> added;
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..") &&
        std::strcmp(e->d_name, "metadata"))
      added.push_back(g_proc + "/" + e->d_name);
  closedir(d);
  for (const auto& f : added)
    if (unlink(f.c_str()) != 0) Die(f.c_str());
  WriteAll(g_proc + "/metadata", g_metadata_text.data(), g_metadata_text.size());
}

void RemoveWorkspace() {
  if (g_proc.empty()) return;
  Reset();
  unlink((g_proc + "/metadata").c_str());
  unlink(g_input.c_str());
  rmdir(g_proc.c_str());
  rmdir(g_root.c_str());
}

tt::ProcessMeta FixedMeta() {
  tt::ProcessMeta m;
  m.trace_uuid = {0x7e, 0x45, 0x54, 0x72, 0xac, 0xe0, 0x4f, 0x0a,
                  0x9b, 0x1c, 0x0d, 0xde, 0xf0, 0x0d, 0x5e, 0xed};
  m.clock_uuid = "0b00c1d0-0000-4000-8000-00000000f022";
  m.clock_offset_ns = 1700000000123456789;
  m.pid = 1;
  m.hostname = "fuzz";
  m.cmdline = "xspace_fuzzer";
  m.session = "fuzz-session";
  m.start_realtime_ns = kStartNs;
  m.offset_start_ns = 1699999000000000000;  // the trace clock starts 1000 s after the epoch
  m.offset_end_ns = 1699999000000000000;
  m.end_state = "exited";
  m.end_offset_by = "process";
  return m;
}

void SetUp() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/tt_xspace_fuzz.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) Die(tmpl.c_str());
  g_root = buf.data();
  g_proc = g_root + "/p1";
  g_input = g_root + "/input.xplane.pb";
  if (mkdir(g_proc.c_str(), 0700) != 0) Die(g_proc.c_str());
  g_metadata_text = tt::GenerateMetadata(FixedMeta());
  Reset();
  std::atexit(RemoveWorkspace);
}

void ReadBack() {
  std::vector<tt::Problem> problems;
  tt::TraceDir t = tt::OpenTrace(g_root);
  for (const auto& p : t.processes)
    for (const auto& file : p.streams) {
      tt::StreamDecoder dec(file, p.meta, &problems);
      tt::RawEvent ev;
      while (dec.Next(&ev)) {
      }
    }
  if (!problems.empty()) {
    std::fprintf(stderr, "xspace_fuzzer: the import wrote a stream the reader finds damaged: %s\n",
                 problems.front().ToString().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  SetUp();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reset();
  WriteAll(g_input, data, size);
  std::optional<tt::XSpaceStepFilter> steps;
  if (size & 1) steps = tt::XSpaceStepFilter{1, 2};
  try {
    tt::XSpaceImport r = tt::ImportXSpace(g_root, 1, {g_input}, steps);
    volatile size_t sink = r.events + r.tracks + r.errors.size();
    (void)sink;
  } catch (const tt::Error&) {
    return 0;
  }
  ReadBack();
  return 0;
}
