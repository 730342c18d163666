#include "format/import/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace tt {

namespace {

// A number from the first line of a cgroup v2 file of this process's cgroup ("max": none).
uint64_t CgroupValue(const std::string& file) {
  std::ifstream cg("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(cg, line))
    if (line.starts_with("0::")) path = line.substr(3);
  std::ifstream f("/sys/fs/cgroup" + path + "/" + file);
  uint64_t v = 0;
  if (!(f >> v)) return 0;
  return v;
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

uint64_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE))
                : 0;
}

uint64_t DefaultImportBudget() {
  uint64_t avail = MemAvailable();
  uint64_t max = CgroupValue("memory.max"), used = CgroupValue("memory.current");
  if (max && max > used) avail = avail ? std::min(avail, max - used) : max - used;
  return std::max<uint64_t>(avail / 2, uint64_t{256} << 20);
}

std::string BudgetText(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return b;
}

}  // namespace tt
