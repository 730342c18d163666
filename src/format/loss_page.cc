#include "format/loss_page.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "format/args.h"

namespace tt {

LossCause LossCauseOfErrno(int err) {
  switch (err) {
    case ENOSPC:
    case EDQUOT:
      return kLossDiskFull;
    case EMFILE:
    case ENFILE:
      return kLossNoFds;
    case EACCES:
    case EPERM:
    case EROFS:
      return kLossPermission;
    default:
      return kLossOther;
  }
}

std::vector<LostProcess> ReadLossPage(const std::string& path) {
  std::vector<LostProcess> out;
  // A regular file only, never blocking (a FIFO planted under the name).
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return out;
  struct stat st;
  std::vector<uint8_t> page(kLossBytes);
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == kLossBytes &&
            pread(fd, page.data(), kLossBytes, 0) == static_cast<ssize_t>(kLossBytes);
  close(fd);
  if (!ok || Load<uint32_t>(page.data() + kLossOffMagic) != kLossMagic ||
      Load<uint32_t>(page.data() + kLossOffVersion) != kLossVersion)
    return out;
  uint32_t used = Load<uint32_t>(page.data() + kLossOffUsed);
  for (uint32_t i = 0; i < used && i < kLossSlots; ++i) {
    const uint8_t* slot = page.data() + kLossHeaderBytes + i * kLossSlotBytes;
    LostProcess p;
    p.pid = Load<uint32_t>(slot + kLossSlotOffPid);
    bool any = false;
    for (uint32_t c = 0; c < kLossCauseCount; ++c) {
      p.counts[c] = Load<uint64_t>(slot + kLossSlotOffCounts + 8 * c);
      any = any || p.counts[c];
    }
    if (any) out.push_back(p);
  }
  return out;
}

}  // namespace tt
