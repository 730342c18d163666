// The memory an import may use (record --import-max-memory): past the budget an import stops
// and says what it kept, so that record itself is never killed for memory by a large profile
// and always writes tensortrace.json and the program's exit status.
#pragma once
#include <cstdint>
#include <string>

namespace tt {

// This process's resident size now (/proc/self/statm), 0 where it cannot be read.
uint64_t ResidentBytes();

// The default budget: half the memory the machine has available now (MemAvailable, which a
// memory cgroup's limit lowers where it is smaller: memory.max less memory.current), at least
// 256 MiB.
uint64_t DefaultImportBudget();

// Checks the resident size against `limit` (0: no limit) every `every` calls, cheaply enough
// for once per event.
class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit, uint32_t every = 4096) : limit_(limit), every_(every) {}
  bool Over() {
    if (!limit_ || ++calls_ % every_) return false;
    return ResidentBytes() > limit_;
  }
  uint64_t limit() const { return limit_; }

 private:
  uint64_t limit_;
  uint32_t every_;
  uint64_t calls_ = 0;
};

// "1.5 GiB" for the budget lines.
std::string BudgetText(uint64_t bytes);

}  // namespace tt
