// A stand-in libcupti for tests without a GPU: the functions the CUDA source opens, backed by
// a few lines each. fake_cupti_launch(corr) plays one cudaLaunchKernel: the API callbacks on
// the calling thread, then a kernel record delivered at the next flush. Its clock runs 5 s
// behind CLOCK_MONOTONIC and it has no timestamp callback, so the source must use an offset.
// FAKE_CUPTI_BUSY=1: cuptiSubscribe answers that another tool holds CUPTI.
#include <cupti.h>
#include <time.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

CUpti_CallbackFunc g_callback = nullptr;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
std::vector<CUpti_ActivityKernel10> g_pending;
size_t g_dropped = 3;  // reported once, with the first buffer

uint64_t FakeClock() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec - 5000000000ull;
}

}  // namespace

extern "C" {

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* s, CUpti_CallbackFunc cb, void*) {
  const char* busy = std::getenv("FAKE_CUPTI_BUSY");
  if (busy && *busy == '1') return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  g_callback = cb;
  *s = reinterpret_cast<CUpti_SubscriberHandle>(&g_callback);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) {
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                         CUpti_CallbackId) {
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain, uint32_t, const char** name) {
  *name = "cudaLaunchKernel";
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult, const char** s) {
  *s = "fake CUPTI error";
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* t) {
  *t = FakeClock();
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                    CUpti_BuffersCallbackCompleteFunc complete) {
  g_request = request;
  g_complete = complete;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid,
                                                CUpti_Activity** record) {
  uint8_t* next =
      *record ? reinterpret_cast<uint8_t*>(*record) + sizeof(CUpti_ActivityKernel10) : buffer;
  if (next + sizeof(CUpti_ActivityKernel10) > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  *dropped = g_dropped;
  g_dropped = 0;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t) {
  if (g_pending.empty() || !g_request) return CUPTI_SUCCESS;
  uint8_t* buf = nullptr;
  size_t size = 0, max_records = 0;
  g_request(&buf, &size, &max_records);
  size_t bytes = g_pending.size() * sizeof(CUpti_ActivityKernel10);
  if (!buf || size < bytes) return CUPTI_ERROR_UNKNOWN;
  std::memcpy(buf, g_pending.data(), bytes);
  g_pending.clear();
  g_complete(nullptr, 0, buf, size, bytes);
  return CUPTI_SUCCESS;
}

// One kernel launch through the runtime API, correlation id `corr`.
__attribute__((visibility("default"))) void fake_cupti_launch(uint32_t corr) {
  uint64_t slot = 0;
  CUpti_CallbackData d;
  std::memset(&d, 0, sizeof d);
  d.functionName = "cudaLaunchKernel";
  d.correlationId = corr;
  d.correlationData = &slot;
  int rc = 0;
  d.functionReturnValue = &rc;
  d.callbackSite = CUPTI_API_ENTER;
  if (g_callback)
    g_callback(nullptr, CUPTI_CB_DOMAIN_RUNTIME_API,
               CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &d);
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "fake_kernel";
  k.streamId = 3;
  k.correlationId = corr;
  k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
  k.start = FakeClock() + 1000;
  k.end = k.start + 2000;
  g_pending.push_back(k);
  d.callbackSite = CUPTI_API_EXIT;
  if (g_callback)
    g_callback(nullptr, CUPTI_CB_DOMAIN_RUNTIME_API,
               CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &d);
}

}  // extern "C"
