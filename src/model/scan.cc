#include "model/scan.h"

namespace tt::model {

bool ArgsView::Find(uint32_t key, Arg* out) const {
  ArgCursor c = Cursor();
  for (uint8_t i = 0; i < count; ++i) {
    ArgCursor at = c;
    if (c.Skip() == key) {  // only the match is decoded
      at.Next(out);
      return true;
    }
  }
  return false;
}

}  // namespace tt::model
