// Protobuf wire bytes written by hand, for tests that build a message without its schema
// (the HLO readers' tests): a varint, a length-delimited field, a varint field.
#pragma once
#include <cstdint>
#include <string>

namespace tt::test {

inline std::string Varint(uint64_t v) {
  std::string s;
  for (; v >= 0x80; v >>= 7) s.push_back(static_cast<char>((v & 0x7f) | 0x80));
  s.push_back(static_cast<char>(v));
  return s;
}
inline std::string Field(uint32_t field, const std::string& bytes) {  // length-delimited
  return Varint(uint64_t{field} << 3 | 2) + Varint(bytes.size()) + bytes;
}
inline std::string Int(uint32_t field, uint64_t v) {
  return Varint(uint64_t{field} << 3) + Varint(v);
}

}  // namespace tt::test
