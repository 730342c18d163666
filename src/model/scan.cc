#include "model/scan.h"

namespace tt::model {

bool ArgsView::Find(uint32_t key, Arg* out) const {
  const uint8_t* p = data;
  for (uint8_t i = 0; i < count; ++i) {
    auto type = static_cast<layout::ArgType>(p[4]);
    if (Load<uint32_t>(p) == key) {
      out->key = key;
      out->type = type;
      if (type == layout::ArgType::kString) out->v.str = Load<uint32_t>(p + 5);
      else out->v.u = Load<uint64_t>(p + 5);
      return true;
    }
    p += 5 + layout::ArgValueSize(type);
  }
  return false;
}

}  // namespace tt::model
