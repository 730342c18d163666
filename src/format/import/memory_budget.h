// The memory an import may use (record --import-max-memory): past the budget an import stops
// and says what it kept, so that record itself is never killed for memory by a large profile
// and always writes tensortrace.json and the program's exit status.
#pragma once
#include <cstdint>
#include <string>

namespace tt {

// This process's resident size now (/proc/self/statm), 0 where it cannot be read.
uint64_t ResidentBytes();

// The default budget: half the memory the machine has available now (MemAvailable), at least
// 256 MiB; and where a hard limit is nearer, this process's resident size now plus half the room
// the limit leaves: a memory cgroup's (v2 memory.max or v1 memory.limit_in_bytes, of this
// process's cgroup and each one above it, less its usage other than the file cache, which the
// kernel reclaims) and RLIMIT_AS (less this process's address space now).
uint64_t DefaultImportBudget();

// The least room any memory cgroup of this process leaves (its limit less its usage other than
// the file cache), over the cgroup named in `proc_cgroup` (the text of /proc/PID/cgroup) and its
// ancestors, v2 under `root` or v1 under `root`/memory. UINT64_MAX where none has a limit.
uint64_t CgroupMemoryRoom(const std::string& proc_cgroup, const std::string& root);

// Checks the resident size against `limit` (0: no limit) every `every` calls, cheaply enough
// for once per event; and, under RLIMIT_AS, the address space against half the room the limit
// left when the budget was made (an import's address space grows faster than its resident
// size: its output is mapped, each thread has its heap).
class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit, uint32_t every = 4096);
  bool Over() {
    if (!limit_ || ++calls_ % every_) return false;
    return Exceeded();
  }
  uint64_t limit() const { return limit_; }

 private:
  bool Exceeded() const;
  uint64_t limit_;
  uint64_t address_space_ = 0;  // the address space past which it is over (0: no RLIMIT_AS)
  uint32_t every_;
  uint64_t calls_ = 0;
};

// "1.5 GiB" for the budget lines.
std::string BudgetText(uint64_t bytes);

}  // namespace tt
