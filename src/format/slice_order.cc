#include "format/slice_order.h"

#include <algorithm>
#include <queue>

namespace tt {

void PutNamedEvent(StreamFileWriter& w, ClassSpace* classes, uint8_t kind, uint64_t ts,
                   uint32_t name, layout::Category cat, uint64_t fixed, const Arg* args,
                   uint32_t n) {
  if (!layout::KindHasArgs(kind)) n = 0;
  ArgEnc enc[layout::kMaxClassArgs];
  uint16_t cls = classes->Find(kind, name, cat, args, n, enc);
  w.Event(cls ? static_cast<uint8_t>(cls) : kind, ts, NamedPayloadRoom(kind, cls != 0, args, n),
          [&](uint8_t* p) {
            return PutNamedPayload(p, kind, cls != 0, name, cat, fixed, args, enc, n);
          });
}

void WriteLineEvents(StreamFileWriter& w, std::vector<LineEvent>& items,
                     const std::vector<Arg>& args, ClassSpace* classes) {
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
    PutNamedEvent(w, classes, layout::kComplete, it.end, it.name, it.category, it.end - it.start,
                  args.data() + it.args, it.nargs);
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
    if (it.flow) {
      w.Event(layout::kFlow, it.start, 9,
              [&](uint8_t* p) { return PutU8(PutU64(p, it.flow_id), it.flow_phase); });
    } else if (it.instant) {
      PutNamedEvent(w, classes, layout::kInstant, it.start, it.name, it.category, 0, a, n);
    } else if (open.empty() || it.end <= open.back()) {
      PutNamedEvent(w, classes, layout::kSliceBeginArgs, it.start, it.name, it.category, 0, a, n);
      open.push_back(it.end);
    } else {
      deferred.push(i);
    }
  }
  flush(UINT64_MAX);
}

}  // namespace tt
