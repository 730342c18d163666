// libcupti, found at run time and opened with dlopen: the functions the CUDA source calls.
// Nothing links libcupti, so a process without CUDA never loads it.
#pragma once
#include <cupti.h>

#include <string>

namespace tt::cupti {

struct Lib {
  void* handle = nullptr;
  std::string path;
  decltype(&cuptiSubscribe) Subscribe = nullptr;
  decltype(&cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&cuptiEnableDomain) EnableDomain = nullptr;
  decltype(&cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&cuptiGetCallbackName) GetCallbackName = nullptr;
  decltype(&cuptiGetResultString) GetResultString = nullptr;
  decltype(&cuptiGetTimestamp) GetTimestamp = nullptr;
  decltype(&cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) RegisterCallbacks = nullptr;
  decltype(&cuptiActivityGetNextRecord) GetNextRecord = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) GetNumDroppedRecords = nullptr;
  decltype(&cuptiActivityFlushAll) FlushAll = nullptr;
  decltype(&cuptiActivityFlushPeriod) FlushPeriod = nullptr;
  decltype(&cuptiActivityRegisterTimestampCallback) RegisterTimestampCallback = nullptr;
};

// Opens libcupti: the copy the process has loaded already, else TENSORTRACE_CUPTI_LIB, else
// under CUDA_HOME / CUDA_PATH and the default toolkit, else the pip nvidia wheels beside a
// loaded CUDA library, else the loader's search path. On failure returns false with `why` set
// to one line. RegisterTimestampCallback and FlushPeriod may stay null (older CUPTI).
bool OpenLib(Lib* lib, std::string* why);

}  // namespace tt::cupti
