#include "format/event_class.h"

#include <algorithm>

namespace tt {

namespace {
std::string KeyOf(uint8_t kind, layout::Category cat, uint32_t name, uint8_t nargs,
                  const uint8_t* shape) {
  std::string k(6 + nargs * layout::kArgHeadSize, '\0');
  k[0] = static_cast<char>(kind);
  k[1] = static_cast<char>(cat);
  std::memcpy(k.data() + 2, &name, 4);
  std::memcpy(k.data() + 6, shape, nargs * layout::kArgHeadSize);
  return k;
}
}  // namespace

ClassSpace::ClassSpace(const std::vector<EventClass>& existing, bool enabled) {
  if (!enabled) next_ = layout::kLastClassId + 1;
  for (const EventClass& c : existing) {
    ids_.emplace(KeyOf(c.kind, c.category, c.name, c.nargs, c.shape), c.id);
    next_ = std::max<uint32_t>(next_, c.id + 1u);
  }
}

uint16_t ClassSpace::Find(uint8_t kind, uint32_t name, layout::Category cat, const Arg* args,
                          uint32_t n, ArgEnc* enc) {
  if (n > layout::kMaxClassArgs || !layout::ClassKindOk(kind)) return 0;
  uint8_t shape[layout::kMaxClassArgs * layout::kArgHeadSize];
  for (uint32_t i = 0; i < n; ++i) {
    enc[i] = EncodeArg(args[i]);
    std::memcpy(shape + i * layout::kArgHeadSize, &args[i].key, 4);
    shape[i * layout::kArgHeadSize + 4] = static_cast<uint8_t>(enc[i].wire);
  }
  auto nargs = static_cast<uint8_t>(n);
  std::string key = KeyOf(kind, cat, name, nargs, shape);
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  if (next_ > layout::kLastClassId) return 0;
  EventClass c;
  c.id = static_cast<uint16_t>(next_++);
  c.kind = kind;
  c.category = cat;
  c.name = name;
  c.nargs = nargs;
  std::memcpy(c.shape, shape, n * layout::kArgHeadSize);
  c.size = layout::ClassFixedSize(kind);
  for (uint32_t i = 0; i < n; ++i) c.size += layout::ArgWireSize(enc[i].wire);
  added_.push_back(c);
  ids_.emplace(std::move(key), c.id);
  return c.id;
}

}  // namespace tt
