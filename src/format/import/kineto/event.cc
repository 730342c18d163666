// The Kineto event as the importer reads it (event.h).
#include "format/import/kineto/event.h"

#include <cstdint>
#include <iterator>
#include <utility>

namespace tt::kineto {

int ImportedArgIndex(std::string_view key) {
  static constexpr std::string_view kRead[] = {"Addr",
                                               "Bytes",
                                               "Device Id",
                                               "Device Type",
                                               "Total Allocated",
                                               "Total Reserved",
                                               "Input Dims",
                                               "Input type",
                                               "Concrete Inputs",
                                               "flops",
                                               "Sequence number",
                                               "Fwd thread id",
                                               "External id",
                                               "correlation",
                                               "stream",
                                               "bytes",
                                               "Collective name",
                                               "dtype",
                                               "Process Group Name",
                                               "Process Group Description",
                                               "In msg nelems",
                                               "Out msg nelems",
                                               "Rank",
                                               "Group size",
                                               "name"};
  // Their lengths (4 to 25 bytes) as bits: most keys the importer does not read end here.
  static constexpr uint32_t kLengths = [] {
    uint32_t bits = 0;
    for (std::string_view k : kRead) bits |= uint32_t{1} << k.size();
    return bits;
  }();
  static_assert(std::size(kRead) <= 32);
  if (key.size() >= 32 || !(kLengths >> key.size() & 1)) return -1;
  for (size_t i = 0; i < std::size(kRead); ++i)
    if (kRead[i] == key) return static_cast<int>(i);
  return -1;
}

bool ImportedArg(std::string_view key) { return ImportedArgIndex(key) >= 0; }

std::string* EventString(KinetoEvent* e, std::string_view key) {
  if (key == "ph") return &e->ph;
  if (key == "cat") return &e->cat;
  if (key == "name") return &e->name;
  return nullptr;
}

json* EventField(KinetoEvent* e, std::string_view key) {
  if (key == "ts") return &e->ts;
  if (key == "dur") return &e->dur;
  if (key == "pid") return &e->pid;
  if (key == "tid") return &e->tid;
  if (key == "id") return &e->id;
  if (key == "args") return &e->args;
  return nullptr;
}

KinetoEvent ToKinetoEvent(json&& event) {
  KinetoEvent e;
  if (!event.is_object()) return e;
  for (auto& [key, v] : event.items()) {
    if (std::string* s = EventString(&e, key)) {
      *s = v.is_string() ? std::move(v.get_ref<std::string&>()) : std::string();
    } else if (json* f = EventField(&e, key)) {
      *f = std::move(v);
    }
  }
  if (e.args.is_object()) {
    json kept = json::object();
    for (auto& [key, v] : e.args.items())
      if (ImportedArg(key)) kept[key] = std::move(v);
    e.args = std::move(kept);
  }
  return e;
}

}  // namespace tt::kineto
