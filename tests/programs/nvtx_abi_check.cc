// Compile-time check of the collector's own NVTX declarations (src/sources/nvtx/nvtx_abi.h)
// against NVIDIA's headers: the collector builds without them, this proves they agree.
#include <nvtx3/nvToolsExt.h>

#include <cstddef>

#include "sources/nvtx/nvtx_abi.h"

namespace n = tt::nvtx;

// Enumerators of two enums compared as numbers.
template <typename A, typename B>
constexpr bool Same(A a, B b) {
  return static_cast<long long>(a) == static_cast<long long>(b);
}

static_assert(sizeof(nvtxEventAttributes_t) == sizeof(n::EventAttributes));
static_assert(offsetof(nvtxEventAttributes_t, category) == offsetof(n::EventAttributes, category));
static_assert(offsetof(nvtxEventAttributes_t, payloadType) ==
              offsetof(n::EventAttributes, payload_type));
static_assert(offsetof(nvtxEventAttributes_t, reserved0) ==
              offsetof(n::EventAttributes, reserved0));
static_assert(offsetof(nvtxEventAttributes_t, payload) == offsetof(n::EventAttributes, payload));
static_assert(offsetof(nvtxEventAttributes_t, messageType) ==
              offsetof(n::EventAttributes, message_type));
static_assert(offsetof(nvtxEventAttributes_t, message) == offsetof(n::EventAttributes, message));
static_assert(sizeof(NvtxExportTableCallbacks) == sizeof(n::ExportTableCallbacks));
static_assert(sizeof(NvtxExportTableVersionInfo) == sizeof(n::ExportTableVersionInfo));
static_assert(offsetof(NvtxExportTableVersionInfo, SetInjectionNvtxVersion) ==
              offsetof(n::ExportTableVersionInfo, SetInjectionNvtxVersion));
static_assert(Same(NVTX_ETID_CALLBACKS, n::kEtidCallbacks) &&
              Same(NVTX_ETID_VERSIONINFO, n::kEtidVersionInfo));
static_assert(Same(NVTX_CB_MODULE_CORE, n::kModuleCore) &&
              Same(NVTX_CB_MODULE_CORE2, n::kModuleCore2));
static_assert(Same(NVTX_CBID_CORE_MarkEx, n::kCoreMarkEx) &&
              Same(NVTX_CBID_CORE_RangeEnd, n::kCoreRangeEnd) &&
              Same(NVTX_CBID_CORE_RangePop, n::kCoreRangePop) &&
              Same(NVTX_CBID_CORE_NameOsThreadW, n::kCoreNameOsThreadW));
static_assert(Same(NVTX_CBID_CORE2_DomainMarkEx, n::kCore2DomainMarkEx) &&
              Same(NVTX_CBID_CORE2_DomainRangePop, n::kCore2DomainRangePop) &&
              Same(NVTX_CBID_CORE2_DomainRegisterStringA, n::kCore2DomainRegisterStringA) &&
              Same(NVTX_CBID_CORE2_DomainCreateA, n::kCore2DomainCreateA) &&
              Same(NVTX_CBID_CORE2_Initialize, n::kCore2Initialize));
static_assert(Same(NVTX_MESSAGE_TYPE_REGISTERED, n::kMessageRegistered) &&
              Same(NVTX_PAYLOAD_TYPE_FLOAT, n::kPayloadFloat) &&
              Same(NVTX_VERSION, n::kNvtxVersion));
