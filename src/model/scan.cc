#include "model/scan.h"

namespace tt::model {

bool ArgsView::Find(uint32_t key, Arg* out) const {
  const uint8_t* p = data;
  for (uint8_t i = 0; i < count; ++i) {
    if (Load<uint32_t>(p) == key) {
      GetArg(p, out);
      return true;
    }
    p += layout::kArgHeadSize + layout::ArgWireSize(static_cast<layout::ArgWire>(p[4]));
  }
  return false;
}

}  // namespace tt::model
