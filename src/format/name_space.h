// A process's interned names as seen after the fact: the definitions already in its streams,
// and the new ones an importer adds (written as string_def events of a new process stream).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tt {

// The model refuses ids above 2^16 as damage; an importer stays below.
inline constexpr uint32_t kMaxImportedNameId = 1u << 16;
// The runtime's longest name; longer ones are cut like it cuts them.
inline constexpr size_t kMaxImportedNameLen = 4096;

class NameSpace {
 public:
  // An existing definition (from the process's streams).
  void Define(uint32_t id, std::string_view text);
  // The id of `text`, adding a definition if new; 0 when the id space is full.
  uint32_t Intern(std::string_view text);
  const std::vector<std::pair<uint32_t, std::string>>& added() const { return added_; }
  bool full() const { return full_; }

 private:
  // Looked up by string_view (no allocation per lookup).
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;
  uint32_t next_ = 1;
  bool full_ = false;
  std::vector<std::pair<uint32_t, std::string>> added_;
};

}  // namespace tt
