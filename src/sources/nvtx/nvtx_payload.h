// NVTX's payload extension (nvToolsExtPayload.h): clients register schemas (the layout of a
// binary payload: named, typed fields at offsets) and enums, then attach payloads that a
// schema describes to their events (payload type NVTX_PAYLOAD_TYPE_EXT). Recent NCCL sends
// its collectives' parameters this way. We keep the schemas and enums of each domain and
// decode the scalar and string fields into arguments.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sources/nvtx/nvtx_abi.h"
#include "sources/nvtx/nvtx_handles.h"

namespace tt::nvtx {

// One decoded field: a key and either an integer, a float or a string.
struct Field {
  const char* key;
  enum Kind { kInt, kUint, kFloat, kString } kind;
  int64_t i;
  uint64_t u;
  double f;
  const char* s;
};

// Calls `add` for each field of `count` payloads (in domain `d`) that a registered schema
// describes; returns false when no schema is known for them (the caller then keeps the raw
// schema id and size). Field names of NCCL's schemas become "communicator", "bytes",
// "reduction" (the names the rest of tensortrace reads).
template <typename F>
bool DecodePayloads(const Domain* d, const PayloadData* data, size_t count, F add);
bool DecodePayload(const Domain* d, const PayloadData& data, void (*add)(void*, const Field&),
                   void* ctx);

template <typename F>
bool DecodePayloads(const Domain* d, const PayloadData* data, size_t count, F add) {
  bool any = false;
  for (size_t i = 0; i < count && i < 4; ++i)
    any |= DecodePayload(
        d, data[i], [](void* c, const Field& f) { (*static_cast<F*>(c))(f); }, &add);
  return any;
}

}  // namespace tt::nvtx
