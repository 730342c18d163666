#include "format/import/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace tt {

namespace {

// A number from the first line of `file` (0 where there is none: "max", no file).
uint64_t FileNumber(const std::string& file) {
  std::ifstream f(file);
  uint64_t v = 0;
  if (!(f >> v)) return 0;
  return v;
}

// The value of `key` in a memory.stat file (0 where it is not there).
uint64_t StatValue(const std::string& file, const std::string& key) {
  std::ifstream f(file);
  std::string k;
  uint64_t v = 0;
  while (f >> k >> v)
    if (k == key) return v;
  return 0;
}

// The room one cgroup directory's limit leaves (UINT64_MAX: no limit there). `v1`: the
// memory controller's files (memory.limit_in_bytes, ...), else cgroup v2's.
uint64_t RoomAt(const std::string& dir, bool v1) {
  uint64_t limit = FileNumber(dir + (v1 ? "/memory.limit_in_bytes" : "/memory.max"));
  if (limit == 0) return UINT64_MAX;
  uint64_t used = FileNumber(dir + (v1 ? "/memory.usage_in_bytes" : "/memory.current"));
  std::string stat = dir + "/memory.stat";
  const char* pre = v1 ? "total_" : "";
  uint64_t cache = StatValue(stat, std::string(pre) + "inactive_file") +
                   StatValue(stat, std::string(pre) + "active_file");
  used = used > cache ? used - cache : 0;
  return limit > used ? limit - used : 0;
}

// The cgroup path of `controller` in /proc/PID/cgroup's text ("" for v2's unified line).
bool CgroupPath(const std::string& proc_cgroup, bool v1, std::string* path) {
  std::istringstream in(proc_cgroup);
  for (std::string line; std::getline(in, line);) {
    size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    if (v1 ? controllers.find(",memory,") != std::string::npos : line.starts_with("0::")) {
      *path = line.substr(b + 1);
      return true;
    }
  }
  return false;
}

uint64_t MemAvailable() {
  std::ifstream m("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  while (m >> key >> kb) {
    if (key == "MemAvailable:") return kb * 1024;
    m.ignore(64, '\n');
  }
  return 0;
}

}  // namespace

// This process's address space and resident size now (/proc/self/statm); false where they
// cannot be read.
static bool Statm(uint64_t* size, uint64_t* resident) {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return false;
  unsigned long s = 0, r = 0;
  int n = std::fscanf(f, "%lu %lu", &s, &r);
  std::fclose(f);
  auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  *size = s * page;
  *resident = r * page;
  return n == 2;
}

uint64_t ResidentBytes() {
  uint64_t size = 0, resident = 0;
  return Statm(&size, &resident) ? resident : 0;
}

// The room RLIMIT_AS leaves this process (UINT64_MAX: no limit).
static uint64_t AddressSpaceRoom() {
  rlimit r{};
  uint64_t size = 0, resident = 0;
  if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  Statm(&size, &resident);
  return r.rlim_cur > size ? r.rlim_cur - size : 0;
}

MemoryBudget::MemoryBudget(uint64_t limit, uint32_t every) : limit_(limit), every_(every) {
  uint64_t room = AddressSpaceRoom(), size = 0, resident = 0;
  if (limit_ && room != UINT64_MAX && Statm(&size, &resident))
    address_space_ = std::max<uint64_t>(size + room / 2, 1);
}

bool MemoryBudget::Exceeded() const {
  uint64_t size = 0, resident = 0;
  if (!Statm(&size, &resident)) return false;
  return resident > limit_ || (address_space_ && size > address_space_);
}

uint64_t CgroupMemoryRoom(const std::string& proc_cgroup, const std::string& root) {
  uint64_t room = UINT64_MAX;
  for (bool v1 : {false, true}) {
    std::string path;
    if (!CgroupPath(proc_cgroup, v1, &path)) continue;
    std::string base = root + (v1 ? "/memory" : "");
    for (;;) {  // this cgroup and each one above it: the nearest limit holds
      room = std::min(room, RoomAt(base + path, v1));
      if (path.empty() || path == "/") break;
      path = path.substr(0, path.rfind('/'));
    }
  }
  return room;
}

uint64_t DefaultImportBudget() {
  uint64_t budget = std::max<uint64_t>(MemAvailable() / 2, uint64_t{256} << 20);
  std::ifstream in("/proc/self/cgroup");
  std::stringstream cgroup;
  cgroup << in.rdbuf();
  uint64_t room = std::min(CgroupMemoryRoom(cgroup.str(), "/sys/fs/cgroup"), AddressSpaceRoom());
  if (room != UINT64_MAX) budget = std::min(budget, ResidentBytes() + room / 2);
  return budget;
}

std::string BudgetText(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return b;
}

}  // namespace tt
