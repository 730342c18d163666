#include "format/name_space.h"

namespace tt {

void NameSpace::Define(uint32_t id, std::string_view text) {
  ids_.emplace(std::string(text), id);
  if (id >= next_) next_ = id + 1;
}

uint32_t NameSpace::Intern(std::string_view text) {
  std::string_view key = text.substr(0, kMaxImportedNameLen);
  // A NUL would end the string in the stream: cut there, as the runtime's C strings do.
  if (size_t z = key.find('\0'); z != std::string_view::npos) key = key.substr(0, z);
  auto it = ids_.find(key);
  if (it != ids_.end()) return it->second;
  if (next_ > kMaxImportedNameId) {
    full_ = true;
    return 0;
  }
  uint32_t id = next_++;
  ids_.emplace(std::string(key), id);
  added_.emplace_back(id, std::string(key));
  return id;
}

}  // namespace tt
