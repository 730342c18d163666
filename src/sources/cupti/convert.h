// CUPTI activity records -> trace events through the runtime's emitters. Needs the CUPTI
// headers (the record layouts) but not libcupti, so that it is unit-testable without a GPU.
#pragma once
#include <cupti_activity.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "format/writer.h"

namespace tt::cupti {

// Names a runtime (CUPTI_ACTIVITY_KIND_RUNTIME) or driver API function by callback id; the
// plumbing asks libcupti (cuptiGetCallbackName), tests give their own.
using ApiNameFn = const char* (*)(CUpti_ActivityKind kind, uint32_t cbid);

// Device queue of events that belong to no CUDA stream (context-wide synchronisation).
inline constexpr uint32_t kNoStreamQueue = 0xFFFFFFFFu;
// CUPTI's own overhead goes to this pseudo device, queue 0.
inline constexpr uint32_t kOverheadDevice = 0xFFFFu;

class Converter {
 public:
  // trace time = CUPTI time + offset_ns (0 when CUPTI's timestamps come from our clock).
  Converter(ApiNameFn api_name, int64_t offset_ns) : api_name_(api_name), offset_(offset_ns) {}

  // Converts one record; false (and counted in skipped()) for a kind that is not converted.
  bool Convert(const CUpti_Activity* r);

  // An API call on the calling thread, from start_ns to end_ns on the trace clock (used for
  // callback-API calls and for API activity records).
  static void EmitApiCall(const char* name, bool driver, uint64_t start_ns, uint64_t end_ns,
                          uint32_t correlation_id, uint32_t return_code);

  // Records CUPTI said it dropped (or that we could not take): counted as drops of the trace.
  static void CountDropped(uint64_t n);

  uint64_t converted() const { return converted_; }
  uint64_t skipped() const { return skipped_; }

 private:
  uint64_t T(uint64_t cupti_ns) const { return cupti_ns + static_cast<uint64_t>(offset_); }
  void Kernel(const CUpti_ActivityKernel10& k);
  void Memcpy(const CUpti_ActivityMemcpy6& m);
  void Memset(const CUpti_ActivityMemset4& m);
  void Sync(const CUpti_ActivitySynchronization2& s);
  void Memory(const CUpti_ActivityMemory4& m);
  void Api(const CUpti_ActivityAPI& a, bool driver);
  void Overhead(const CUpti_ActivityOverhead3& o);
  int64_t ExternalId(uint32_t correlation_id);
  // Arguments with interned ids cached here: the delivering thread has no stream of its own,
  // and interning through the process table costs a lock and a hash per name.
  Arg Int(const char* key, int64_t v);
  Arg Str(const char* key, const char* v);
  uint32_t Key(const char* key);
  const std::string& Demangled(const char* name);

  ApiNameFn api_name_;
  int64_t offset_;
  uint64_t converted_ = 0, skipped_ = 0;
  // correlation id -> external id (EXTERNAL_CORRELATION records come before the work's).
  std::unordered_map<uint32_t, uint64_t> external_;
  std::unordered_map<uint32_t, uint32_t> context_device_;  // for records without a device
  std::unordered_map<const char*, std::string> demangled_;
  std::unordered_map<const char*, uint32_t> keys_;  // keys are string literals
  std::unordered_map<std::string, uint32_t> values_;
};

// "HtoD", "DtoH", ... for CUpti_ActivityMemcpyKind; "pageable", "device", ... for memory kinds.
const char* MemcpyKindName(uint32_t kind);
const char* MemoryKindName(uint32_t kind);

}  // namespace tt::cupti
