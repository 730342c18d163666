// A second DSO with NVTX in it: its copy of the NVTX client initialises on its own, so the
// injection's entry runs once more in the same process.
#include <nvtx3/nvToolsExt.h>

extern "C" int tt_nvtx_lib_op() {
  nvtxDomainHandle_t tsl = nvtxDomainCreateA("TSL");
  nvtxEventAttributes_t a = {};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "lib/Conv2D:Conv2D";
  int level = nvtxDomainRangePushEx(tsl, &a);
  nvtxDomainRangePop(tsl);
  return level;
}
