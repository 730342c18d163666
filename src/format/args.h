// Event arguments: the writer's Arg, its encoding at the narrowest exact width (layout.h,
// ArgWire) and its decoding. Header-only: the runtime's hot path inlines the encoder.
#pragma once
#include <emmintrin.h>

#include <cstdint>
#include <cstring>

#include "core/hot.h"
#include "format/layout.h"

namespace tt {

// A typed argument as the writer takes it; `str` holds an interned string id.
struct Arg {
  uint32_t key = 0;
  layout::ArgType type = layout::ArgType::kInt;
  union {
    int64_t i;
    uint64_t u;
    double f;
    uint32_t str;
  } v{};
};

// Room for `n` arguments (the count byte and each at its widest): what writers reserve.
constexpr uint32_t ArgsSize(const Arg*, uint32_t n) { return 1 + n * layout::kArgMaxSize; }

// The narrowest encoding that gives back a's exact value.
TT_HOT layout::ArgWire ArgWireOf(const Arg& a) {
  using layout::ArgWire;
  if (a.type == layout::ArgType::kInt) {
    int64_t v = a.v.i;
    if (v == static_cast<int32_t>(v)) {
      if (v == static_cast<int8_t>(v)) return ArgWire::kI8;
      return v == static_cast<int16_t>(v) ? ArgWire::kI16 : ArgWire::kI32;
    }
    return ArgWire::kI64;
  }
  if (a.type == layout::ArgType::kFloat) {
    // The instructions rather than a cast: a value past float's range becomes an infinity (a
    // cast would be undefined), so only a value a float holds exactly comes back bit for bit.
    __m128 f = _mm_cvtsd_ss(_mm_setzero_ps(), _mm_set_sd(a.v.f));
    double back = _mm_cvtsd_f64(_mm_cvtss_sd(_mm_setzero_pd(), f));
    return std::memcmp(&back, &a.v.f, 8) == 0 ? ArgWire::kF32 : ArgWire::kF64;
  }
  if (a.type == layout::ArgType::kUint) return a.v.u <= UINT32_MAX ? ArgWire::kU32 : ArgWire::kU64;
  return ArgWire::kStr;
}

// Writes a's value in encoding w; returns its end. Integer encodings are the low bytes of the
// 64-bit value, so all but float and string store those 8 bytes and move on by the width: the
// caller's room must allow 8 bytes for every value (ArgsSize and NamedPayloadRoom do).
TT_HOT uint8_t* PutArgValue(uint8_t* p, const Arg& a, layout::ArgWire w) {
  using layout::ArgWire;
  if (w == ArgWire::kF32) {
    float x = _mm_cvtss_f32(_mm_cvtsd_ss(_mm_setzero_ps(), _mm_set_sd(a.v.f)));
    std::memcpy(p, &x, 4);
  } else if (w == ArgWire::kStr) {
    std::memcpy(p, &a.v.str, 4);
  } else {
    std::memcpy(p, &a.v.u, 8);
  }
  return p + layout::ArgWireSize(w);
}

// The count byte, then each argument's key, encoding and value (self-described arguments).
inline uint8_t* PutArgs(uint8_t* p, const Arg* args, uint32_t n) {
  *p++ = static_cast<uint8_t>(n);
  for (uint32_t i = 0; i < n; ++i) {
    layout::ArgWire w = ArgWireOf(args[i]);
    std::memcpy(p, &args[i].key, 4);
    p[4] = static_cast<uint8_t>(w);
    p = PutArgValue(p + layout::kArgHeadSize, args[i], w);
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
    case ArgWire::kI8: out->v.i = static_cast<int8_t>(*v); break;
    case ArgWire::kI16: { int16_t x; std::memcpy(&x, v, 2); out->v.i = x; break; }
    case ArgWire::kI32: { int32_t x; std::memcpy(&x, v, 4); out->v.i = x; break; }
    case ArgWire::kU32: { uint32_t x; std::memcpy(&x, v, 4); out->v.u = x; break; }
    case ArgWire::kF32: { float x; std::memcpy(&x, v, 4); out->v.f = x; break; }
    case ArgWire::kStr: out->v.u = 0; std::memcpy(&out->v.str, v, 4); break;
    default: std::memcpy(&out->v.u, v, 8); break;
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
