// Reading event arguments by key: a process's interned ids for keys of the catalogue
// (format/keys.h), and typed reads of one argument from an ArgsView. The one way analyses and
// exporters read arguments:
//
//   auto [corr, bytes] = model::KeyIds(p, {keys::kCorrelationId, keys::kBytes});  // per process
//   int64_t n = model::ArgInt(s.args, bytes).value_or(0);                           // per event
//   uint32_t kind = model::ArgStr(s.args, kind_id);  // an interned id; p.Name(kind) is its text
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "format/keys.h"
#include "model/model.h"
#include "model/scan.h"

namespace tt::model {

// The interned ids of `keys` in process p, in the order given; 0 for a key p never interned.
// Where p's table holds a text under several ids the highest one counts.
template <size_t N>
std::array<uint32_t, N> KeyIds(const Process& p, const std::string_view (&keys)[N]) {
  std::array<uint32_t, N> ids{};
  for (uint32_t i = 1; i < p.names.size(); ++i) {
    const std::string& n = p.names[i];
    if (n.empty()) continue;  // ids never defined (a damaged trace)
    for (size_t k = 0; k < N; ++k)
      if (n == keys[k]) ids[k] = i;
  }
  return ids;
}

// The interned id of one key in p (0: never interned); the highest where it repeats.
inline uint32_t KeyId(const Process& p, std::string_view key) { return KeyIds(p, {key})[0]; }

// The argument `key` (an interned id; 0 never matches) when it holds a number (integer,
// unsigned or double), as decoded.
inline bool ArgNumber(const ArgsView& a, uint32_t key, Arg* out) {
  return key && a.Find(key, out) && out->type != layout::ArgType::kString;
}

// The argument `key` as an integer: integers as they are (an unsigned one as its bits), a double
// that an int64 holds truncated; nothing for a string, a NaN, a huge double or no such argument.
inline std::optional<int64_t> ArgInt(const ArgsView& a, uint32_t key) {
  Arg x;
  if (!ArgNumber(a, key, &x)) return std::nullopt;
  if (x.type != layout::ArgType::kFloat) return x.v.i;
  if (!(x.v.f >= -9.2e18 && x.v.f <= 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(x.v.f);
}

// The argument `key`'s interned string id; 0 when it is missing or not a string.
inline uint32_t ArgStr(const ArgsView& a, uint32_t key) {
  Arg x;
  return key && a.Find(key, &x) && x.type == layout::ArgType::kString ? x.v.str : 0;
}

}  // namespace tt::model
