// Protocol-buffer wire encoding by hand (varints, fixed 64-bit values, length-delimited
// fields) for exporters that write a protobuf stream without building message objects.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tt::exporter::wire {

inline void Varint(std::string& o, uint64_t v) {
  char b[10];
  int n = 0;
  while (v >= 0x80) {
    b[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  b[n++] = static_cast<char>(v);
  o.append(b, static_cast<size_t>(n));
}
// Bytes Varint(v) takes.
inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
inline void Tag(std::string& o, uint32_t field, uint32_t wire_type) {
  Varint(o, uint64_t{field} << 3 | wire_type);
}
// uint32/uint64/enum/bool fields.
inline void Uint(std::string& o, uint32_t field, uint64_t v) {
  Tag(o, field, 0);
  Varint(o, v);
}
// int32/int64 fields: negative values take ten bytes (two's complement), as protobuf says.
inline void Int(std::string& o, uint32_t field, int64_t v) {
  Uint(o, field, static_cast<uint64_t>(v));
}
inline void Fixed64(std::string& o, uint32_t field, uint64_t v) {
  Tag(o, field, 1);
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  o.append(b, 8);
}
inline void Double(std::string& o, uint32_t field, double d) {
  uint64_t v;
  std::memcpy(&v, &d, 8);
  Fixed64(o, field, v);
}
// string, bytes and embedded-message fields.
inline void String(std::string& o, uint32_t field, std::string_view s) {
  Tag(o, field, 2);
  Varint(o, s.size());
  o.append(s);
}
inline void Message(std::string& o, uint32_t field, const std::string& encoded) {
  String(o, field, encoded);
}

}  // namespace tt::exporter::wire
