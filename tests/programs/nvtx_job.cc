// Real NVTX v3 calls (NVIDIA's header-only client from the CUDA toolkit) of every kind the
// NVTX collector maps, for nvtx_test: push/pop nested, start/end on one thread and across
// threads, marks, domains ("TSL", "NCCL", a user domain), registered strings, category and
// thread names, payloads of several types, an extended payload with a registered schema and
// enum (as recent NCCL sends), a wide message, and a second DSO with its own client. Prints what
// push/pop returned ("levels: ..."), the NVTX_INJECTION64_PATH it saw, and exits non-zero if a call
// misbehaved.
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

extern "C" int tt_nvtx_lib_op();

namespace {

nvtxEventAttributes_t Attributes(const char* message) {
  nvtxEventAttributes_t a = {};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  return a;
}

uint32_t Tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

}  // namespace

// `nvtx_job --bench N`: N push/pop pairs in domain "TSL" (what an annotated op costs), timed.
int Bench(long n) {
  nvtxDomainHandle_t tsl = nvtxDomainCreateA("TSL");
  nvtxEventAttributes_t a = Attributes("bench/MatMul:MatMul");
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    nvtxDomainRangePushEx(tsl, &a);
    nvtxDomainRangePop(tsl);
  }
  std::chrono::duration<double, std::nano> dt = std::chrono::steady_clock::now() - t0;
  std::printf("ns per push/pop pair: %.1f\n", dt.count() / static_cast<double>(n));
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--bench") return Bench(std::atol(argv[2]));
  std::string levels;
  auto level = [&](int v) { levels += " " + std::to_string(v); };

  nvtxNameOsThreadA(Tid(), "nvtx-main");
  nvtxNameCategoryA(1, "Forward");

  // PyTorch's emit_nvtx style, in the default domain.
  level(nvtxRangePushA("aten::linear, seq = 7, op_id = 1"));
  level(nvtxRangePushA("aten::addmm, seq = 8"));
  level(nvtxRangePop());
  level(nvtxRangePop());
  level(nvtxRangePop());  // nothing open

  nvtxEventAttributes_t step = Attributes("step");
  step.category = 1;
  step.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  step.payload.ullValue = 42;
  nvtxRangePushEx(&step);
  nvtxMarkA("checkpoint");
  nvtxRangePop();

  // TensorFlow / JAX / XLA annotations.
  nvtxDomainHandle_t tsl = nvtxDomainCreateA("TSL");
  nvtxStringHandle_t matmul = nvtxDomainRegisterStringA(tsl, "dense/MatMul:MatMul");
  nvtxEventAttributes_t mm = Attributes(nullptr);
  mm.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  mm.message.registered = matmul;
  nvtxDomainRangePushEx(tsl, &mm);
  nvtxEventAttributes_t bias = Attributes("dense/BiasAdd:BiasAdd");
  bias.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  bias.payload.llValue = -5;
  nvtxDomainRangePushEx(tsl, &bias);
  nvtxDomainRangePop(tsl);
  nvtxDomainRangePop(tsl);
  if (tt_nvtx_lib_op() < -1) levels += " lib-untracked";

  // NCCL's collectives.
  nvtxDomainHandle_t nccl = nvtxDomainCreateA("NCCL");
  nvtxEventAttributes_t ar = Attributes("ncclAllReduce");
  ar.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  ar.payload.ullValue = 1048576;
  nvtxDomainRangePushEx(nccl, &ar);
  nvtxDomainRangePop(nccl);
  // Recent NCCL: the parameters in a struct that a registered schema describes.
  struct CollParams {
    uint64_t comm;
    size_t bytes;
    int op;
  };
  const uint64_t kRedOpSchema = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 1;
  const uint64_t kCollSchema = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 2;
  const nvtxPayloadEnum_t red_ops[] = {{"Sum", 0, 0}, {"Max", 2, 0}};
  nvtxPayloadEnumAttr_t enum_attr = {};
  enum_attr.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                        NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                        NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
  enum_attr.entries = red_ops;
  enum_attr.numEntries = 2;
  enum_attr.sizeOfEnum = sizeof(int);
  enum_attr.schemaId = kRedOpSchema;
  nvtxPayloadEnumRegister(nccl, &enum_attr);
  const nvtxPayloadSchemaEntry_t fields[] = {
      {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "NCCL communicator ID", nullptr, 0,
       offsetof(CollParams, comm), nullptr, nullptr},
      {0, NVTX_PAYLOAD_ENTRY_TYPE_SIZE, "Message size [bytes]", nullptr, 0,
       offsetof(CollParams, bytes), nullptr, nullptr},
      {0, kRedOpSchema, "Reduction operation", nullptr, 0, offsetof(CollParams, op), nullptr,
       nullptr}};
  nvtxPayloadSchemaAttr_t schema_attr = {};
  schema_attr.fieldMask =
      NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
      NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
      NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
  schema_attr.name = "NcclReduceScatter";
  schema_attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
  schema_attr.entries = fields;
  schema_attr.numEntries = 3;
  schema_attr.payloadStaticSize = sizeof(CollParams);
  schema_attr.schemaId = kCollSchema;
  nvtxPayloadSchemaRegister(nccl, &schema_attr);
  CollParams params{0xabcdef, 4096, 2};
  nvtxPayloadData_t payload[] = {{kCollSchema, sizeof params, &params}};
  nvtxEventAttributes_t rs = Attributes("ncclReduceScatter");
  NVTX_PAYLOAD_EVTATTR_SET_MULTIPLE(rs, payload)
  nvtxDomainRangePushEx(nccl, &rs);
  nvtxDomainRangePop(nccl);
  // A payload whose schema was never registered: kept as its schema id and size.
  nvtxPayloadData_t unknown[] = {{NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 9, 24, &params}};
  nvtxEventAttributes_t group = Attributes("ncclGroupEnd");
  NVTX_PAYLOAD_EVTATTR_SET_MULTIPLE(group, unknown)
  nvtxDomainMarkEx(nccl, &group);

  // A user domain: named category, double and int32 payloads, start/end across threads.
  nvtxDomainHandle_t app = nvtxDomainCreateA("my.app");
  nvtxDomainNameCategoryA(app, 3, "IO");
  nvtxEventAttributes_t loaded = Attributes("loaded");
  loaded.category = 3;
  loaded.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
  loaded.payload.dValue = 2.5;
  nvtxDomainMarkEx(app, &loaded);
  nvtxEventAttributes_t load = Attributes("load");
  load.payloadType = NVTX_PAYLOAD_TYPE_INT32;
  load.payload.iValue = 7;
  nvtxRangeId_t load_id = nvtxDomainRangeStartEx(app, &load);
  nvtxRangeId_t same = nvtxRangeStartA("same-thread");
  nvtxRangeEnd(same);

  std::atomic<uint32_t> worker_tid{0};
  std::atomic<bool> named{false};
  std::thread worker([&] {
    worker_tid = Tid();
    while (!named) std::this_thread::yield();
    nvtxRangePushA("worker-task");
    nvtxDomainRangeEnd(app, load_id);
    nvtxRangePop();
  });
  while (worker_tid == 0) std::this_thread::yield();
  nvtxNameOsThreadA(worker_tid, "nvtx-worker");
  named = true;
  worker.join();
  nvtxDomainDestroy(app);

  nvtxMarkW(L"wide-\u00fc");

  const char* inj = std::getenv("NVTX_INJECTION64_PATH");
  std::printf("levels:%s\ninjection: %s\n", levels.c_str(), inj ? inj : "(unset)");
  return 0;
}
