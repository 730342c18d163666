#include "sources/cupti/convert.h"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>

#include "format/keys.h"
#include "runtime/device.h"
#include "runtime/emit.h"

namespace tt::cupti {

namespace {

using layout::ArgType;
using layout::Category;

Arg ThreadInt(const char* key, int64_t v) {
  Arg a;
  a.key = rt::InternName(key);
  a.type = ArgType::kInt;
  a.v.i = v;
  return a;
}
Arg ThreadStr(const char* key, const char* v) {
  Arg a;
  a.key = rt::InternName(key);
  a.type = ArgType::kString;
  a.v.str = rt::InternName(v);
  return a;
}
std::string Dim3(int64_t x, int64_t y, int64_t z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

}  // namespace

uint32_t Converter::Key(const char* key) {
  auto it = keys_.find(key);
  if (it != keys_.end()) return it->second;
  uint32_t id = rt::InternName(key);
  if (id) keys_.emplace(key, id);
  return id;
}

Arg Converter::Int(const char* key, int64_t v) {
  Arg a;
  a.key = Key(key);
  a.type = ArgType::kInt;
  a.v.i = v;
  return a;
}

Arg Converter::Str(const char* key, const char* v) {
  Arg a;
  a.key = Key(key);
  a.type = ArgType::kString;
  auto it = values_.find(v);
  if (it != values_.end()) {
    a.v.str = it->second;
  } else {
    a.v.str = rt::InternName(v);
    if (a.v.str && values_.size() < 4096) values_.emplace(v, a.v.str);
  }
  return a;
}

const char* MemcpyKindName(uint32_t kind) {
  static const char* const kNames[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                       "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
  return kind < sizeof kNames / sizeof kNames[0] ? kNames[kind] : "unknown";
}

const char* MemoryKindName(uint32_t kind) {
  static const char* const kNames[] = {"unknown", "pageable", "pinned",        "device",
                                       "array",   "managed",  "device_static", "managed_static"};
  return kind < sizeof kNames / sizeof kNames[0] ? kNames[kind] : "unknown";
}

const std::string& Converter::Demangled(const char* name) {
  auto it = demangled_.find(name);
  if (it != demangled_.end()) return it->second;
  std::string out = name ? name : "";
  int status = 0;
  if (name) {
    char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (d && status == 0) out = d;
    std::free(d);
  }
  // CUPTI keeps kernel names alive for the process's life, so the pointer is a stable key.
  return demangled_.emplace(name, std::move(out)).first->second;
}

int64_t Converter::ExternalId(uint32_t correlation_id) {
  auto it = external_.find(correlation_id);
  if (it == external_.end()) return -1;
  int64_t id = static_cast<int64_t>(it->second);
  external_.erase(it);  // one launch, one piece of work (graphs: the first node keeps it)
  return id;
}

void Converter::Kernel(const CUpti_ActivityKernel10& k) {
  context_device_[k.contextId] = k.deviceId;
  std::string grid = Dim3(k.gridX, k.gridY, k.gridZ), block = Dim3(k.blockX, k.blockY, k.blockZ);
  Arg args[11];
  uint32_t n = 0;
  args[n++] = Int(keys::kCorrelationId, k.correlationId);
  int64_t ext = ExternalId(k.correlationId);
  if (ext >= 0) args[n++] = Int(keys::kExternalId, ext);
  args[n++] = Str(keys::kGrid, grid.c_str());
  args[n++] = Str(keys::kBlock, block.c_str());
  args[n++] = Int(keys::kRegisters, k.registersPerThread);
  args[n++] = Int(keys::kStaticShared, k.staticSharedMemory);
  args[n++] = Int(keys::kDynamicShared, k.dynamicSharedMemory);
  args[n++] = Int(keys::kContext, k.contextId);
  args[n++] = Int(keys::kStream, k.streamId);
  if (k.graphId) {
    args[n++] = Int(keys::kGraphId, k.graphId);
    args[n++] = Int(keys::kGraphNodeId, static_cast<int64_t>(k.graphNodeId));
  }
  rt::EmitDeviceActivity(k.deviceId, k.streamId, Demangled(k.name).c_str(), Category::kGpuKernel,
                         T(k.start), T(k.end), args, n);
}

void Converter::Memcpy(const CUpti_ActivityMemcpy6& m) {
  context_device_[m.contextId] = m.deviceId;
  Arg args[8];
  uint32_t n = 0;
  args[n++] = Int(keys::kCorrelationId, m.correlationId);
  int64_t ext = ExternalId(m.correlationId);
  if (ext >= 0) args[n++] = Int(keys::kExternalId, ext);
  args[n++] = Int(keys::kBytes, static_cast<int64_t>(m.bytes));
  args[n++] = Str(keys::kKind, MemcpyKindName(m.copyKind));
  args[n++] = Str(keys::kSrcKind, MemoryKindName(m.srcKind));
  args[n++] = Str(keys::kDstKind, MemoryKindName(m.dstKind));
  args[n++] = Int(keys::kStream, m.streamId);
  if (m.graphId) args[n++] = Int(keys::kGraphId, m.graphId);
  rt::EmitDeviceActivity(m.deviceId, m.streamId, keys::kMemcpy, Category::kMemcpy, T(m.start),
                         T(m.end), args, n);
}

void Converter::Memset(const CUpti_ActivityMemset4& m) {
  context_device_[m.contextId] = m.deviceId;
  Arg args[6];
  uint32_t n = 0;
  args[n++] = Int(keys::kCorrelationId, m.correlationId);
  int64_t ext = ExternalId(m.correlationId);
  if (ext >= 0) args[n++] = Int(keys::kExternalId, ext);
  args[n++] = Int(keys::kBytes, static_cast<int64_t>(m.bytes));
  args[n++] = Int(keys::kValue, m.value);
  args[n++] = Str(keys::kMemoryKind, MemoryKindName(m.memoryKind));
  args[n++] = Int(keys::kStream, m.streamId);
  rt::EmitDeviceActivity(m.deviceId, m.streamId, keys::kMemset, Category::kMemset, T(m.start),
                         T(m.end), args, n);
}

void Converter::Sync(const CUpti_ActivitySynchronization2& s) {
  static const char* const kNames[] = {"sync", "cudaEventSynchronize", "cudaStreamWaitEvent",
                                       "cudaStreamSynchronize", "cudaDeviceSynchronize"};
  uint32_t t = static_cast<uint32_t>(s.type);
  const char* name = t < 5 ? kNames[t] : "sync";
  auto dev = context_device_.find(s.contextId);
  Arg args[3] = {Int(keys::kContext, s.contextId)};
  uint32_t n = 1;
  if (s.correlationId) args[n++] = Int(keys::kCorrelationId, s.correlationId);
  if (s.cudaEventId != CUPTI_SYNCHRONIZATION_INVALID_VALUE)
    args[n++] = Int(keys::kEvent, s.cudaEventId);
  rt::EmitDeviceActivity(dev == context_device_.end() ? 0 : dev->second, s.streamId, name,
                         Category::kSync, T(s.start), T(s.end), args, n);
}

void Converter::Memory(const CUpti_ActivityMemory4& m) {
  bool alloc = m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  if (!alloc && m.memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
    ++skipped_;
    return;
  }
  // Same names and args as TensorFlow's allocator events, so the memory analysis reads both.
  Arg args[5] = {Int(keys::kBytes, static_cast<int64_t>(m.bytes)),
                 Int(keys::kAddr, static_cast<int64_t>(m.address)),
                 Str(keys::kMemoryKind, MemoryKindName(m.memoryKind)),
                 Str(keys::kAllocator, "cuda")};
  // Id 0: no API call made it; an argument would start a flow from nowhere.
  uint32_t n = 4;
  if (m.correlationId) args[n++] = Int(keys::kCorrelationId, m.correlationId);
  // A point in time on the device queue it was made on (stream 0 when synchronous).
  rt::EmitDeviceActivity(m.deviceId, m.streamId,
                         alloc ? keys::kMemoryAllocation : keys::kMemoryDeallocation,
                         Category::kAllocation, T(m.timestamp), T(m.timestamp), args, n);
}

void Converter::EmitApiCall(const char* name, bool driver, uint64_t start_ns, uint64_t end_ns,
                            uint32_t correlation_id, uint32_t return_code) {
  // Any thread, concurrently: the calling thread's own name cache does the interning.
  Arg args[3] = {ThreadInt(keys::kCorrelationId, correlation_id),
                 ThreadInt(keys::kReturnCode, return_code),
                 ThreadStr(keys::kApi, driver ? "driver" : "runtime")};
  rt::EmitComplete(name, Category::kRuntimeApi, end_ns > start_ns ? end_ns - start_ns : 0, args, 3,
                   end_ns);
}

void Converter::Api(const CUpti_ActivityAPI& a, bool driver) {
  const char* name = api_name_ ? api_name_(a.kind, a.cbid) : nullptr;
  char buf[32];
  if (!name) {
    std::snprintf(buf, sizeof buf, "%s_api_%u", driver ? "driver" : "runtime", a.cbid);
    name = buf;
  }
  EmitApiCall(name, driver, T(a.start), T(a.end), a.correlationId, a.returnValue);
}

void Converter::Overhead(const CUpti_ActivityOverhead3& o) {
  const char* what = "overhead";
  switch (o.overheadKind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
      what = "CUPTI overhead: driver compiler";
      break;
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
      what = "CUPTI overhead: buffer flush";
      break;
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
      what = "CUPTI overhead: instrumentation";
      break;
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
      what = "CUPTI overhead: resource";
      break;
    default:
      what = "CUPTI overhead";
      break;
  }
  Arg args[1] = {Int(keys::kCorrelationId, o.correlationId)};
  rt::EmitDeviceActivity(kOverheadDevice, 0, what, Category::kUser, T(o.start), T(o.end), args,
                         o.correlationId ? 1 : 0);
}

bool Converter::Convert(const CUpti_Activity* r) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      Kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      Memcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      Memset(*reinterpret_cast<const CUpti_ActivityMemset4*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      Sync(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      Memory(*reinterpret_cast<const CUpti_ActivityMemory4*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      Api(*reinterpret_cast<const CUpti_ActivityAPI*>(r), r->kind == CUPTI_ACTIVITY_KIND_DRIVER);
      break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      auto& e = *reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(r);
      external_[e.correlationId] = e.externalId;
      break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      Overhead(*reinterpret_cast<const CUpti_ActivityOverhead3*>(r));
      break;
    default:
      ++skipped_;
      return false;
  }
  ++converted_;
  return true;
}

void Converter::CountDropped(uint64_t n) {
  if (n) rt::CountDropReason(rt::kDropCupti, n);
}

}  // namespace tt::cupti
