// Hand-built CUPTI activity records (the CUDA 13 structs) through the CUDA source's conversion,
// in a process traced by the real runtime (TENSORTRACE_DIR). No GPU and no libcupti: this is
// what a CUDA job's buffers would deliver, with timestamps already on the trace clock.
//   TENSORTRACE_DIR=DIR cupti_records        prints "converted N skipped M"
//   TENSORTRACE_DIR=DIR cupti_records bench N   converts N kernel records on one stream and
//                                            prints the nanoseconds per record (not a test)
// Two framework ops on the main thread: MatMul launches vector_add (runtime API, external id
// 77) on stream 7 and a HtoD copy on stream 7; Conv launches a graph kernel (driver API) on
// stream 13 and a memset there, then synchronises the device. Plus a device allocation and its
// free, CUPTI overhead, one record of a kind not converted, and 5 records CUPTI dropped.
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/time.h"
#include "runtime/emit.h"
#include "sources/cupti/convert.h"

namespace rt = tt::rt;
using tt::layout::Category;

namespace {

uint64_t Now() { return tt::ReadClockNs(CLOCK_MONOTONIC); }

void Wait(uint64_t ns) {
  for (uint64_t end = Now() + ns; Now() < end;) {
  }
}

const char* Name(CUpti_ActivityKind kind, uint32_t cbid) {
  if (kind == CUPTI_ACTIVITY_KIND_RUNTIME &&
      cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
    return "cudaLaunchKernel";
  if (kind == CUPTI_ACTIVITY_KIND_RUNTIME && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020)
    return "cudaMemcpyAsync";
  if (kind == CUPTI_ACTIVITY_KIND_RUNTIME &&
      cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020)
    return "cudaDeviceSynchronize";
  if (kind == CUPTI_ACTIVITY_KIND_DRIVER && cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch)
    return "cuGraphLaunch";
  return nullptr;  // the converter names it by id
}

template <typename T>
T Zeroed(CUpti_ActivityKind kind) {
  T r;
  std::memset(&r, 0, sizeof r);
  r.kind = kind;
  return r;
}

CUpti_ActivityAPI Api(CUpti_ActivityKind kind, uint32_t cbid, uint32_t corr, uint64_t start,
                      uint64_t end) {
  auto a = Zeroed<CUpti_ActivityAPI>(kind);
  a.cbid = cbid;
  a.correlationId = corr;
  a.start = start;
  a.end = end;
  a.threadId = 1;
  return a;
}

}  // namespace

int Bench(long n) {
  tt::cupti::Converter conv(Name, 0);
  auto k = Zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  k.name = "_Z10vector_addPfS_S_i";
  k.streamId = 7;
  k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
  uint64_t t0 = Now();
  for (long i = 0; i < n; ++i) {
    k.correlationId = static_cast<uint32_t>(i);
    k.start = t0 + 1000 * static_cast<uint64_t>(i);
    k.end = k.start + 500;
    conv.Convert(reinterpret_cast<const CUpti_Activity*>(&k));
  }
  uint64_t t1 = Now();
  std::printf("%.1f ns per kernel record (%ld records)\n",
              static_cast<double>(t1 - t0) / static_cast<double>(n), n);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "bench") == 0) return Bench(std::atol(argv[2]));
  tt::cupti::Converter conv(Name, 0);
  auto C = [&](const void* r) { conv.Convert(static_cast<const CUpti_Activity*>(r)); };

  // The host side: ops with their launches, on this thread, in time order.
  rt::EmitBegin("model/dense/MatMul:MatMul", Category::kFrameworkOp);
  Wait(20000);
  uint64_t t1 = Now();
  auto launch = Api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1,
                    t1 - 10000, t1);
  C(&launch);
  Wait(20000);
  uint64_t t2 = Now();
  auto copy_api = Api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
                      2, t2 - 10000, t2);
  C(&copy_api);
  Wait(10000);
  rt::EmitEnd();
  rt::EmitBegin("model/conv:Conv2D", Category::kFrameworkOp);
  Wait(20000);
  uint64_t t3 = Now();
  auto graph_api =
      Api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, 3, t3 - 10000, t3);
  C(&graph_api);
  Wait(10000);
  uint64_t t4 = Now();
  // A call the test names by id only (cuMemsetD8Async has no name in Name()).
  auto memset_api =
      Api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, 4, t4 - 5000, t4);
  memset_api.returnValue = 1;  // CUDA_ERROR_INVALID_VALUE, kept as return_code
  C(&memset_api);
  Wait(10000);
  uint64_t t5 = Now();
  auto sync_api = Api(CUPTI_ACTIVITY_KIND_RUNTIME,
                      CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 6, t5 - 8000, t5);
  C(&sync_api);
  Wait(10000);
  rt::EmitEnd();

  // The device side, as a buffer delivers it.
  auto ext = Zeroed<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  ext.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN;
  ext.externalId = 77;
  ext.correlationId = 1;
  C(&ext);
  auto k1 = Zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  k1.name = "_Z10vector_addPfS_S_i";
  k1.deviceId = 0;
  k1.contextId = 1;
  k1.streamId = 7;
  k1.correlationId = 1;
  k1.gridX = 128, k1.gridY = 1, k1.gridZ = 1;
  k1.blockX = 256, k1.blockY = 2, k1.blockZ = 1;
  k1.registersPerThread = 32;
  k1.staticSharedMemory = 1024;
  k1.dynamicSharedMemory = 512;
  k1.start = t1 + 5000;
  k1.end = t1 + 25000;
  C(&k1);
  auto m = Zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 4096;
  m.deviceId = 0;
  m.contextId = 1;
  m.streamId = 7;
  m.correlationId = 2;
  m.start = t2 + 30000;
  m.end = t2 + 34000;
  C(&m);
  auto k2 = Zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  k2.name = "relu_kernel";  // C names stay as they are
  k2.deviceId = 0;
  k2.contextId = 1;
  k2.streamId = 13;
  k2.correlationId = 3;
  k2.gridX = k2.gridY = k2.gridZ = 1;
  k2.blockX = 64, k2.blockY = k2.blockZ = 1;
  k2.graphId = 5;
  k2.graphNodeId = 9;
  k2.start = t3 + 2000;
  k2.end = t3 + 8000;
  C(&k2);
  auto ms = Zeroed<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
  ms.bytes = 256;
  ms.value = 0;
  ms.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  ms.deviceId = 0;
  ms.contextId = 1;
  ms.streamId = 13;
  ms.correlationId = 4;
  ms.start = t4 + 1000;
  ms.end = t4 + 2000;
  C(&ms);
  auto sync = Zeroed<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  sync.contextId = 1;
  sync.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  sync.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  sync.correlationId = 6;
  sync.start = t5 - 7000;
  sync.end = t5 - 1000;
  C(&sync);
  auto alloc = Zeroed<CUpti_ActivityMemory4>(CUPTI_ACTIVITY_KIND_MEMORY2);
  alloc.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  alloc.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  alloc.address = 0x7f0000000000;
  alloc.bytes = 1 << 20;
  alloc.deviceId = 0;
  alloc.streamId = 0;
  alloc.timestamp = t1 - 1000;
  C(&alloc);
  auto release = alloc;
  release.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  release.timestamp = t5 + 10000;
  C(&release);
  auto over = Zeroed<CUpti_ActivityOverhead3>(CUPTI_ACTIVITY_KIND_OVERHEAD);
  over.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  over.start = t5 + 11000;
  over.end = t5 + 12000;
  C(&over);
  auto other = Zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_DEVICE);  // not converted
  C(&other);
  tt::cupti::Converter::CountDropped(5);
  std::printf("converted %llu skipped %llu\n", static_cast<unsigned long long>(conv.converted()),
              static_cast<unsigned long long>(conv.skipped()));
  return 0;
}
