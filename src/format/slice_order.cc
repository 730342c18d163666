#include "format/slice_order.h"

#include <algorithm>
#include <queue>

namespace tt {

void WriteLineEvents(StreamFileWriter& w, std::vector<LineEvent>& items,
                     const std::vector<Arg>& args) {
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return items[a].start < items[b].start ||
           (items[a].start == items[b].start && items[a].end > items[b].end);
  });
  std::vector<uint64_t> open;  // ends of the open slices, innermost last
  auto later = [&](size_t a, size_t b) { return items[a].end > items[b].end; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> deferred(later);
  auto complete = [&](const LineEvent& it) {
    const Arg* a = args.data() + it.args;
    w.Event(layout::kComplete, it.end, 13 + ArgsSize(a, it.nargs), [&](uint8_t* p) {
      p = PutU32(p, it.name);
      p = PutU8(p, static_cast<uint8_t>(it.category));
      p = PutU64(p, it.end - it.start);
      return PutArgs(p, a, it.nargs);
    });
  };
  auto flush = [&](uint64_t t) {
    for (;;) {
      bool end = !open.empty() && open.back() <= t;
      bool comp = !deferred.empty() && items[deferred.top()].end <= t;
      if (!end && !comp) break;
      if (comp && (!end || items[deferred.top()].end <= open.back())) {
        complete(items[deferred.top()]);
        deferred.pop();
      } else {
        w.Event(layout::kSliceEnd, open.back(), 0, [](uint8_t* p) { return p; });
        open.pop_back();
      }
    }
  };
  for (size_t i : order) {
    const LineEvent& it = items[i];
    flush(it.start);
    const Arg* a = args.data() + it.args;
    uint32_t n = it.nargs;
    if (it.instant) {
      w.Event(layout::kInstant, it.start, 5 + ArgsSize(a, n), [&](uint8_t* p) {
        p = PutU32(p, it.name);
        p = PutU8(p, static_cast<uint8_t>(it.category));
        return PutArgs(p, a, n);
      });
    } else if (open.empty() || it.end <= open.back()) {
      w.Event(layout::kSliceBeginArgs, it.start, 5 + ArgsSize(a, n), [&](uint8_t* p) {
        p = PutU32(p, it.name);
        p = PutU8(p, static_cast<uint8_t>(it.category));
        return PutArgs(p, a, n);
      });
      open.push_back(it.end);
    } else {
      deferred.push(i);
    }
  }
  flush(UINT64_MAX);
}

}  // namespace tt
