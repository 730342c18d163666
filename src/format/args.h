// Event arguments: the writer's Arg, its encoding at the narrowest exact width (layout.h,
// ArgWire) and its decoding. Header-only: the runtime's hot path inlines the encoder.
#pragma once
#include <emmintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/hot.h"
#include "format/layout.h"

namespace tt {

// Unaligned stores and loads of a value's bytes.
template <typename T>
inline void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}
template <typename T>
inline T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// A typed argument as the writer takes it; `str` holds an interned string id.
struct Arg {
  uint32_t key = 0;
  layout::ArgType type = layout::ArgType::kInt;
  uint8_t pad[3] = {};  // unused; what a caller leaves there does not matter
  union {
    int64_t i;
    uint64_t u;
    double f;
    uint32_t str;
  } v{};
};
static_assert(sizeof(Arg) == 16 && offsetof(Arg, v) == 8);

// Room for `n` arguments (the count byte and each at its widest): what writers reserve.
constexpr uint32_t ArgsSize(const Arg*, uint32_t n) { return 1 + n * layout::kArgMaxSize; }

// An argument as it is written: its narrowest exact encoding and the 8 bytes to store for it
// (the value's own for integers and doubles, whose encodings are their low bytes; a float's
// bits, or the string id, zero-extended). Every value is stored as 8 bytes and the cursor moved
// by the encoding's width, so writers reserve 8 bytes per value (ArgsSize, NamedPayloadRoom).
struct ArgEnc {
  uint64_t bits;
  layout::ArgWire wire;
};

// The encoding of a signed integer v by the leading zeros of v ^ (v >> 63), its bits that only
// repeat the sign: 57 or more and it fits in 8 bits, 49 in 16, 33 in 32.
inline constexpr auto kIntWireByClz = [] {
  std::array<layout::ArgWire, 64> t{};
  for (int z = 0; z < 64; ++z)
    t[z] = z >= 57   ? layout::ArgWire::kI8
           : z >= 49 ? layout::ArgWire::kI16
           : z >= 33 ? layout::ArgWire::kI32
                     : layout::ArgWire::kI64;
  return t;
}();

// The narrowest encoding that gives back a's exact value, and the bytes to store for it.
TT_HOT ArgEnc EncodeArg(const Arg& a) {
  using layout::ArgWire;
  if (a.type == layout::ArgType::kInt) {
    int64_t v = a.v.i;
    auto m = static_cast<uint64_t>(v ^ (v >> 63));
    return {a.v.u, kIntWireByClz[__builtin_clzll(m | 1)]};  // | 1: clz(0) is undefined
  }
  if (a.type == layout::ArgType::kFloat) {
    // The instructions rather than a cast: a value past float's range becomes an infinity (a
    // cast would be undefined), so only a value a float holds exactly comes back bit for bit.
    __m128 f = _mm_cvtsd_ss(_mm_setzero_ps(), _mm_set_sd(a.v.f));
    double back = _mm_cvtsd_f64(_mm_cvtss_sd(_mm_setzero_pd(), f));
    uint64_t back_bits;
    std::memcpy(&back_bits, &back, 8);
    if (back_bits != a.v.u) return {a.v.u, ArgWire::kF64};
    return {static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_castps_si128(f))), ArgWire::kF32};
  }
  if (a.type == layout::ArgType::kUint)
    return {a.v.u, a.v.u <= UINT32_MAX ? ArgWire::kU32 : ArgWire::kU64};
  return {a.v.str, ArgWire::kStr};
}

// Writes an encoded value (8 bytes, of which its width count); returns its end.
TT_HOT uint8_t* PutArgValue(uint8_t* p, ArgEnc e) {
  Store<uint64_t>(p, e.bits);
  return p + layout::ArgWireSize(e.wire);
}

// The count byte, then each argument's key, encoding and value (self-described arguments).
inline uint8_t* PutArgs(uint8_t* p, const Arg* args, uint32_t n) {
  *p++ = static_cast<uint8_t>(n);
  for (uint32_t i = 0; i < n; ++i) {
    ArgEnc e = EncodeArg(args[i]);
    Store<uint32_t>(p, args[i].key);
    p[4] = static_cast<uint8_t>(e.wire);
    p = PutArgValue(p + layout::kArgHeadSize, e);
  }
  return p;
}

// Bytes of the encoded argument at p; 0 if it runs past the `avail` bytes there or its
// encoding is unknown.
inline uint32_t EncodedArgSize(const uint8_t* p, uint64_t avail) {
  if (avail < layout::kArgHeadSize || p[4] >= static_cast<uint8_t>(layout::ArgWire::kCount))
    return 0;
  uint32_t n = layout::kArgHeadSize + layout::ArgWireSize(static_cast<layout::ArgWire>(p[4]));
  return n <= avail ? n : 0;
}

// Decodes the argument whose (validated) key and encoding are at `head` and whose value is at
// `v`, widened to its ArgType; returns the value's end.
inline const uint8_t* DecodeArg(const uint8_t* head, const uint8_t* v, Arg* out) {
  using layout::ArgWire;
  auto w = static_cast<ArgWire>(head[4]);
  std::memcpy(&out->key, head, 4);
  out->type = layout::ArgWireType(w);
  switch (w) {
    case ArgWire::kI8:
      out->v.i = static_cast<int8_t>(*v);
      break;
    case ArgWire::kI16:
      out->v.i = Load<int16_t>(v);
      break;
    case ArgWire::kI32:
      out->v.i = Load<int32_t>(v);
      break;
    case ArgWire::kU32:
      out->v.u = Load<uint32_t>(v);
      break;
    case ArgWire::kF32:
      out->v.f = Load<float>(v);
      break;
    case ArgWire::kStr:
      out->v.u = Load<uint32_t>(v);
      break;
    default:
      out->v.u = Load<uint64_t>(v);
      break;
  }
  return v + layout::ArgWireSize(w);
}

// Decodes the self-described argument at p; returns its end.
inline const uint8_t* GetArg(const uint8_t* p, Arg* out) {
  return DecodeArg(p, p + layout::kArgHeadSize, out);
}

// Steps through an event's arguments: self-described ones (shape == nullptr), or the values of
// an event class whose `shape` holds each argument's key and encoding.
struct ArgCursor {
  const uint8_t* p;
  const uint8_t* shape;
  void Next(Arg* out) {
    if (!shape) {
      p = GetArg(p, out);
    } else {
      p = DecodeArg(shape, p, out);
      shape += layout::kArgHeadSize;
    }
  }
  // Moves past the next argument without decoding it; returns its key.
  uint32_t Skip() {
    const uint8_t* head = shape ? shape : p;
    uint32_t key;
    std::memcpy(&key, head, 4);
    uint32_t n = layout::ArgWireSize(static_cast<layout::ArgWire>(head[4]));
    if (shape) {
      shape += layout::kArgHeadSize;
      p += n;
    } else {
      p += layout::kArgHeadSize + n;
    }
    return key;
  }
};

}  // namespace tt
