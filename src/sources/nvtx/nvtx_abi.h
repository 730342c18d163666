// The binary interface between an NVTX v3 client (the header-only code that every NVTX user
// compiles in: CUDA libraries, NCCL, TensorFlow/XLA, PyTorch) and an injection library: our
// own declarations, with the layouts of NVIDIA's nvtx3 headers (nvToolsExt.h,
// nvtxDetail/nvtxTypes.h, nvtxDetail/nvtxImpl.h, nvToolsExtPayload.h). Linux x86-64.
//
// The protocol, as those headers implement it:
// - A client's first NVTX call reads NVTX_INJECTION64_PATH, dlopens that library, looks up
//   `int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t)` and calls it once. A zero return
//   makes the client turn every NVTX call into a no-op (and unload the library).
// - Every DSO that compiles the header in has its own globals, so it initialises on its own:
//   the tool's entry is called once per such DSO, each time with that DSO's export tables.
// - Export table 1 (CALLBACKS) holds GetModuleFunctionTable(module, &table, &size): `table` is
//   an array of pointers to the client's function-pointer slots, indexed by the callback id of
//   that module (1..size; index 0 is unused); the tool stores its functions through them.
//   Slots the tool leaves alone become no-ops once the entry returns.
// - Export table 3 (VERSIONINFO) holds the client's API version and SetInjectionNvtxVersion,
//   through which the tool says which version it implements.
// - Extensions (payload schemas, counters, memory...) initialise apart, per DSO and module:
//   they look up `int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t*)` in the same
//   library and hand it their slots (nvtx_payload.cc serves the payload module).
#pragma once
#include <cstddef>
#include <cstdint>

namespace tt::nvtx {

using GetExportTableFn = const void* (*)(uint32_t export_table_id);
using FunctionPointer = void (*)();
using FunctionTable = FunctionPointer**;

// NvtxExportTableID.
enum ExportTableId : uint32_t { kEtidCallbacks = 1, kEtidVersionInfo = 3 };

// NvtxCallbackModule.
enum Module : int {
  kModuleCore = 1,
  kModuleCuda = 2,
  kModuleOpenCl = 3,
  kModuleCudaRt = 4,
  kModuleCore2 = 5,
  kModuleSync = 6
};

// NvtxCallbackIdCore: the calls without a domain (the "default domain").
enum CoreId : unsigned {
  kCoreMarkEx = 1,
  kCoreMarkA = 2,
  kCoreMarkW = 3,
  kCoreRangeStartEx = 4,
  kCoreRangeStartA = 5,
  kCoreRangeStartW = 6,
  kCoreRangeEnd = 7,
  kCoreRangePushEx = 8,
  kCoreRangePushA = 9,
  kCoreRangePushW = 10,
  kCoreRangePop = 11,
  kCoreNameCategoryA = 12,
  kCoreNameCategoryW = 13,
  kCoreNameOsThreadA = 14,
  kCoreNameOsThreadW = 15,
};

// NvtxCallbackIdCore2: the domain calls.
enum Core2Id : unsigned {
  kCore2DomainMarkEx = 1,
  kCore2DomainRangeStartEx = 2,
  kCore2DomainRangeEnd = 3,
  kCore2DomainRangePushEx = 4,
  kCore2DomainRangePop = 5,
  kCore2DomainResourceCreate = 6,
  kCore2DomainResourceDestroy = 7,
  kCore2DomainNameCategoryA = 8,
  kCore2DomainNameCategoryW = 9,
  kCore2DomainRegisterStringA = 10,
  kCore2DomainRegisterStringW = 11,
  kCore2DomainCreateA = 12,
  kCore2DomainCreateW = 13,
  kCore2DomainDestroy = 14,
  kCore2Initialize = 15,
};

// NvtxExportTableCallbacks.
struct ExportTableCallbacks {
  size_t struct_size;
  int (*GetModuleFunctionTable)(int module, FunctionTable* out_table, unsigned* out_size);
};

// NvtxExportTableVersionInfo.
struct ExportTableVersionInfo {
  size_t struct_size;
  uint32_t version;
  uint32_t reserved0;
  void (*SetInjectionNvtxVersion)(uint32_t version);
};

inline constexpr uint32_t kNvtxVersion = 3;

// nvtxMessageType_t and nvtxPayloadType_t.
enum MessageType : int32_t { kMessageAscii = 1, kMessageUnicode = 2, kMessageRegistered = 3 };
enum PayloadType : int32_t {
  kPayloadU64 = 1,
  kPayloadI64 = 2,
  kPayloadDouble = 3,
  kPayloadU32 = 4,
  kPayloadI32 = 5,
  kPayloadFloat = 6,
  // nvToolsExtPayload.h: payload.ullValue points to reserved0 nvtxPayloadData_t entries
  // (binary blobs laid out by a schema the payload extension registered).
  kPayloadExt = static_cast<int32_t>(0xDFBD0009),
};

// The handles a client gets from us and passes back; opaque to it (nvtxDomainHandle_t,
// nvtxStringHandle_t). Defined in nvtx_handles.h.
struct Domain;
struct String;

// nvtxMessageValue_t.
union MessageValue {
  const char* ascii;
  const wchar_t* unicode;
  const String* registered;
};

// nvtxEventAttributes_v2 (version 3 clients send the same structure).
struct EventAttributes {
  uint16_t version;
  uint16_t size;
  uint32_t category;
  int32_t color_type;
  uint32_t color;
  int32_t payload_type;
  int32_t reserved0;  // with kPayloadExt: the number of nvtxPayloadData_t entries
  union {
    uint64_t u64;
    int64_t i64;
    double d;
    uint32_t u32;
    int32_t i32;
    float f;
  } payload;
  int32_t message_type;
  MessageValue message;
};
static_assert(sizeof(EventAttributes) == 48 && offsetof(EventAttributes, message) == 40,
              "nvtxEventAttributes_v2 layout (Linux x86-64)");

// nvtxPayloadData_t.
struct PayloadData {
  uint64_t schema_id;
  size_t size;
  const void* payload;
};

using RangeId = uint64_t;  // nvtxRangeId_t

}  // namespace tt::nvtx
