// The CUDA source: InitializeInjection, which the CUDA driver calls at cuInit in a process
// whose CUDA_INJECTION64_PATH names libtensortrace.so. It lives in the runtime library itself
// (like the ITT collector), so there is one runtime per process and nothing to hand across
// libraries; a process that never initialises CUDA never calls it and never loads libcupti.
//
// API calls come from the callback API (on the calling thread, on our clock); device work from
// activity buffers, converted on the thread that CUPTI delivers them on.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "core/time.h"
#include "runtime/emit.h"
#include "runtime/process.h"
#include "sources/cupti/convert.h"
#include "sources/cupti/libcupti.h"

namespace tt::cupti {

namespace {

Lib g_lib;
CUpti_SubscriberHandle g_subscriber = nullptr;
std::mutex g_convert_mu;  // buffers may complete on several threads
Converter* g_converter = nullptr;
uint64_t g_buffer_bytes = 4 << 20;
uint64_t g_cap_bytes = 128ull << 20;
std::atomic<uint64_t> g_outstanding{0};
std::atomic<uint64_t> g_refused{0};  // buffer requests refused at the cap
bool g_noisy = false;

uint64_t EnvU64(const char* name, uint64_t dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  unsigned long long x = std::strtoull(v, &end, 10);
  return end && *end == 0 ? x : dflt;
}

// Says once, on stderr and in the trace, why CUDA activity is not traced in this process.
void Off(const std::string& why) {
  std::fprintf(stderr, "tensortrace: CUDA activity not traced in process %d: %s\n",
               static_cast<int>(getpid()), why.c_str());
  rt::EmitSource("cuda", ("off: " + why).c_str());
}

std::string ResultText(CUptiResult r) {
  const char* s = nullptr;
  if (g_lib.GetResultString && g_lib.GetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

uint64_t CUPTIAPI TraceClock() { return ReadClockNs(CLOCK_MONOTONIC); }

const char* ApiName(CUpti_ActivityKind kind, uint32_t cbid) {
  const char* name = nullptr;
  auto domain =
      kind == CUPTI_ACTIVITY_KIND_DRIVER ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
  if (g_lib.GetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS) return nullptr;
  return name;
}

void CUPTIAPI OnRequest(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  *buffer = nullptr;
  *size = 0;
  // Over the cap CUPTI gets no buffer and drops records; it counts them for us.
  if (g_outstanding.load() + g_buffer_bytes > g_cap_bytes) {
    g_refused.fetch_add(1);
    return;
  }
  void* p = std::aligned_alloc(8, g_buffer_bytes);
  if (!p) return;
  g_outstanding.fetch_add(g_buffer_bytes);
  *buffer = static_cast<uint8_t*>(p);
  *size = g_buffer_bytes;
}

void CUPTIAPI OnComplete(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  {
    std::lock_guard<std::mutex> lock(g_convert_mu);
    CUpti_Activity* r = nullptr;
    while (g_lib.GetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) g_converter->Convert(r);
    size_t dropped = 0;
    if (g_lib.GetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
      Converter::CountDropped(dropped);
  }
  std::free(buffer);
  g_outstanding.fetch_sub(g_buffer_bytes);
}

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->callbackSite == CUPTI_API_ENTER) {
    *cb->correlationData = rt::ThreadNowNs();
    return;
  }
  uint32_t rc = 0;
  if (cb->functionReturnValue) rc = *static_cast<const uint32_t*>(cb->functionReturnValue);
  Converter::EmitApiCall(cb->functionName, domain == CUPTI_CB_DOMAIN_DRIVER_API,
                         *cb->correlationData, rt::ThreadNowNs(), cb->correlationId, rc);
  (void)cbid;
}

// Device and context queries: many per step and rarely interesting.
void QuietNoisyCalls() {
  const CUpti_CallbackId runtime[] = {CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000};
  const CUpti_CallbackId driver[] = {
      CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,           CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount,
      CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,  CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
      CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,       CUPTI_DRIVER_TRACE_CBID_cuCtxSetCurrent,
      CUPTI_DRIVER_TRACE_CBID_cuEventQuery,          CUPTI_DRIVER_TRACE_CBID_cuStreamQuery,
      CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute, CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttributes,
      CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,      CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2};
  for (auto id : runtime) g_lib.EnableCallback(0, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  for (auto id : driver) g_lib.EnableCallback(0, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
}

void FinalFlush() {
  if (!g_converter) return;
  g_lib.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  // The records lost to refused buffers are in CUPTI's dropped counts; say why they were.
  if (uint64_t n = g_refused.load())
    rt::EmitSource("cuda", ("buffer cap reached " + std::to_string(n) + " times").c_str());
}

int Initialize() {
  if (!rt::Armed()) return 1;
  std::string why;
  if (!OpenLib(&g_lib, &why)) {
    Off(why);
    return 1;
  }
  CUptiResult r = g_lib.Subscribe(&g_subscriber, OnCallback, nullptr);
  if (r != CUPTI_SUCCESS) {
    Off(r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
            ? "CUPTI is held by another tool (only one subscriber per process)"
            : "cuptiSubscribe: " + ResultText(r));
    return 1;
  }
  // At least 64 KiB, a multiple of 8 (CUPTI's record alignment, and aligned_alloc's rule).
  g_buffer_bytes = (std::max<uint64_t>(EnvU64("TENSORTRACE_CUPTI_BUFFER", 4 << 20), 64 << 10) + 7) &
                   ~uint64_t{7};
  g_cap_bytes = EnvU64("TENSORTRACE_CUPTI_CAP", 128ull << 20);
  g_noisy = EnvU64("TENSORTRACE_CUDA_NOISY", 0) != 0;
  // Our clock for CUPTI's timestamps; without the callback (older CUPTI), an offset.
  int64_t offset = 0;
  if (!g_lib.RegisterTimestampCallback ||
      g_lib.RegisterTimestampCallback(TraceClock) != CUPTI_SUCCESS) {
    uint64_t c = 0;
    g_lib.GetTimestamp(&c);
    offset = static_cast<int64_t>(ReadClockNs(CLOCK_MONOTONIC)) - static_cast<int64_t>(c);
  }
  g_converter = new Converter(ApiName, offset);
  g_lib.EnableDomain(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  g_lib.EnableDomain(1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  if (!g_noisy) QuietNoisyCalls();
  r = g_lib.RegisterCallbacks(OnRequest, OnComplete);
  if (r != CUPTI_SUCCESS) {
    g_lib.Unsubscribe(g_subscriber);
    Off("cuptiActivityRegisterCallbacks: " + ResultText(r));
    return 1;
  }
  std::string missing;
  for (auto kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                    CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                    CUPTI_ACTIVITY_KIND_OVERHEAD})
    if (g_lib.ActivityEnable(kind) != CUPTI_SUCCESS)
      missing += (missing.empty() ? "" : ",") + std::to_string(static_cast<int>(kind));
  if (g_lib.FlushPeriod)
    g_lib.FlushPeriod(static_cast<uint32_t>(EnvU64("TENSORTRACE_CUPTI_FLUSH_MS", 500)));
  std::atexit(FinalFlush);
  std::string detail = "on: " + g_lib.path;
  if (!missing.empty()) detail += "; activity kinds not available: " + missing;
  if (offset) detail += "; timestamps by offset";
  rt::EmitSource("cuda", detail.c_str());
  return 1;
}

}  // namespace

}  // namespace tt::cupti

// Called by the CUDA driver (CUDA_INJECTION64_PATH). Never fails the program: any problem
// leaves CUDA untraced, said in one line.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  try {
    return tt::cupti::Initialize();
  } catch (...) {
    return 1;
  }
}
