// Event classes (layout 3, see layout.h): their definition event in the process stream, and
// what readers keep of one to decode the events of its class.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/hot.h"
#include "format/args.h"
#include "format/layout.h"
#include "format/writer.h"

namespace tt {

struct EventClass {
  uint16_t id = 0;  // 0: no class
  uint8_t kind = 0;
  layout::Category category = layout::Category::kUser;
  uint32_t name = 0;
  uint8_t nargs = 0;
  // Each argument's uint32 key and uint8 encoding, as self-described arguments start.
  uint8_t shape[layout::kMaxClassArgs * layout::kArgHeadSize] = {};
  uint32_t size = 0;  // payload bytes of every event of the class
  // The texts of `name` and of each key, for the metadata's declaration of the class.
  std::string name_text;
  std::vector<std::string> key_texts;
};

// Bytes of the event_class_def payload at p; 0 if it does not fit before `end` or is invalid.
inline uint64_t ClassDefSize(const uint8_t* p, const uint8_t* end) {
  using namespace layout;
  auto avail = static_cast<uint64_t>(end - p);
  if (avail < 9) return 0;
  uint16_t id = static_cast<uint16_t>(p[0] | p[1] << 8);
  uint8_t kind = p[2], nargs = p[8];
  if (id < kFirstClassId || id > kLastClassId || !ClassKindOk(kind) ||
      p[7] >= static_cast<uint8_t>(Category::kCount) || nargs > kMaxClassArgs ||
      (nargs && !KindHasArgs(kind)))
    return 0;
  uint64_t n = 9 + uint64_t{nargs} * kArgHeadSize;
  if (avail < n) return 0;
  for (uint32_t i = 0; i < nargs; ++i)
    if (p[9 + i * kArgHeadSize + 4] >= static_cast<uint8_t>(ArgWire::kCount)) return 0;
  return n;
}

// Decodes a validated event_class_def payload (texts left empty).
inline EventClass ParseClassDef(const uint8_t* p) {
  using namespace layout;
  EventClass c;
  c.id = static_cast<uint16_t>(p[0] | p[1] << 8);
  c.kind = p[2];
  c.name = static_cast<uint32_t>(p[3] | p[4] << 8 | p[5] << 16) | static_cast<uint32_t>(p[6]) << 24;
  c.category = static_cast<Category>(p[7]);
  c.nargs = p[8];
  c.size = ClassFixedSize(c.kind);
  for (uint32_t i = 0; i < c.nargs; ++i) {
    const uint8_t* a = p + 9 + i * kArgHeadSize;
    for (uint32_t k = 0; k < kArgHeadSize; ++k) c.shape[i * kArgHeadSize + k] = a[k];
    c.size += ArgWireSize(static_cast<ArgWire>(a[4]));
  }
  return c;
}

// Room a named event's payload (slice_begin, slice_begin_args, complete, instant, counter)
// needs at most: its class's values, or (not `classed`) the self-described fields.
TT_HOT uint64_t NamedPayloadRoom(uint8_t kind, bool classed, const Arg* args, uint32_t n) {
  uint32_t fsize = layout::ClassFixedSize(kind);
  if (classed) return fsize + uint64_t{n} * 8;
  return 5 + fsize + (layout::KindHasArgs(kind) ? ArgsSize(args, n) : 0);
}

// Writes that payload, as the runtime and the importer both do: with a class, `fixed`
// (complete's duration, the bits of counter's value) then each value as `enc` encodes it;
// without one, name, category, `fixed` and the self-described arguments.
TT_HOT uint8_t* PutNamedPayload(uint8_t* p, uint8_t kind, bool classed, uint32_t name,
                                layout::Category cat, uint64_t fixed, const Arg* args,
                                const ArgEnc* enc, uint32_t n) {
  if (!classed) p = PutU8(PutU32(p, name), static_cast<uint8_t>(cat));
  if (layout::ClassFixedSize(kind)) p = PutU64(p, fixed);
  if (classed) {
    TT_UNROLL(6)
    for (uint32_t i = 0; i < n; ++i) p = PutArgValue(p, enc[i]);
  } else if (layout::KindHasArgs(kind)) {
    p = PutArgs(p, args, n);
  }
  return p;
}

// Writes an event_class_def payload (9 + kArgHeadSize * nargs bytes); returns its end.
inline uint8_t* PutClassDef(uint8_t* p, uint16_t id, uint8_t kind, uint32_t name,
                            layout::Category cat, uint8_t nargs, const uint8_t* shape) {
  p[0] = static_cast<uint8_t>(id);
  p[1] = static_cast<uint8_t>(id >> 8);
  p[2] = kind;
  std::memcpy(p + 3, &name, 4);
  p[7] = static_cast<uint8_t>(cat);
  p[8] = nargs;
  std::memcpy(p + 9, shape, uint32_t{nargs} * layout::kArgHeadSize);
  return p + 9 + uint32_t{nargs} * layout::kArgHeadSize;
}

// Event classes for a writer after the fact (the XSpace import): a process's classes, and the
// ones the writer adds, numbered after them.
class ClassSpace {
 public:
  // `enabled` false (a trace of a layout before 3): every event is written self-described.
  explicit ClassSpace(const std::vector<EventClass>& existing, bool enabled = true);
  // The class of a named event (kinds and limits as layout.h says), with each argument
  // encoded in `enc`; 0 when it has none (too many arguments, or no id left): write it
  // self-described then.
  uint16_t Find(uint8_t kind, uint32_t name, layout::Category cat, const Arg* args, uint32_t n,
                ArgEnc* enc);
  // The classes added, in id order (their texts left empty).
  const std::vector<EventClass>& added() const { return added_; }

 private:
  std::unordered_map<std::string, uint16_t> ids_;  // kind, category, name, shape -> id
  uint32_t next_ = layout::kFirstClassId;
  std::vector<EventClass> added_;
};

}  // namespace tt
