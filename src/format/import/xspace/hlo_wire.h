// A small protobuf wire reader for the HLO protos of an XSpace (hlo.cc, hlo_cost.cc): the
// profile is untrusted input, so every read is bounded and damage turns `ok` false.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace tt::hlo_wire {

// One protobuf field at a time from a byte span; ok turns false at anything malformed.
struct Wire {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;
  explicit Wire(std::string_view s)
      : p(reinterpret_cast<const uint8_t*>(s.data())), end(p + s.size()) {}
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
      uint8_t b = *p++;
      *v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return true;
    }
    return ok = false;
  }
  // The next field: its number and wire type, and its value (a varint, or the bytes of a
  // length-delimited field); fixed-width values are skipped. False at the end or on damage.
  bool Next(uint32_t* field, uint32_t* type, uint64_t* v, std::string_view* bytes) {
    uint64_t tag;
    if (!ok || p >= end || !Varint(&tag)) return false;
    *field = static_cast<uint32_t>(tag >> 3);
    *type = static_cast<uint32_t>(tag & 7);
    switch (*type) {
      case 0:
        return Varint(v);
      case 1:
      case 5: {
        size_t n = *type == 1 ? 8 : 4;
        if (static_cast<size_t>(end - p) < n) return ok = false;
        p += n;
        return true;
      }
      case 2:
        if (!Varint(v) || *v > static_cast<uint64_t>(end - p)) return ok = false;
        *bytes = std::string_view(reinterpret_cast<const char*>(p), *v);
        p += *v;
        return true;
      default:
        return ok = false;
    }
  }
};

// Bytes per element of xla::PrimitiveType (xla_data.proto); 0: no fixed size (tuple, token,
// opaque, 4-bit types).
inline int64_t ElementBytes(uint64_t type) {
  // PRED S8 S16 S32 S64 U8 U16 U32 U64 F16 F32 F64 TUPLE OPAQUE C64 BF16 TOKEN C128, F8 types
  static constexpr std::array<int64_t, 26> kSizes = {0, 1, 1, 2, 4, 8,  1, 2, 4, 8, 2, 4, 8,
                                                     0, 0, 8, 2, 0, 16, 1, 1, 0, 0, 1, 1, 1};
  return type < kSizes.size() ? kSizes[type] : 0;
}

// The length-delimited fields `field` of `msg`, each given to f; false on damage.
template <typename F>
bool Each(std::string_view msg, uint32_t want, F f) {
  Wire w(msg);
  uint32_t field, type;
  uint64_t v;
  std::string_view b;
  while (w.Next(&field, &type, &v, &b))
    if (type == 2 && field == want) f(b);
  return w.ok;
}

}  // namespace tt::hlo_wire
