// The binary interface between an ITT-instrumented library (the "static part" of ittnotify that
// is compiled into oneDNN, TBB, the ittapi Python module...) and a collector: our own
// declarations of the public ittnotify types, with the layouts of Intel's ittapi headers
// (include/ittnotify.h, src/ittnotify/ittnotify_config.h). Linux x86-64, ASCII names only.
#pragma once
#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace tt::itt {

// __itt_domain: callers skip every call on a domain whose flags are 0.
struct Domain {
  volatile int flags;
  const char* nameA;
  void* nameW;
  int extra1;  // reserved to the collector: we keep the category + 1 here
  void* extra2;
  Domain* next;
};

// __itt_string_handle.
struct StringHandle {
  const char* strA;
  void* strW;
  int extra1;
  void* extra2;
  StringHandle* next;
};

// __itt_id, passed by value.
struct Id {
  unsigned long long d1, d2, d3;
};

// __itt_counter_info_t: what a counter handle points to when the static part created it before
// a collector was loaded.
struct CounterInfo {
  const char* nameA;
  void* nameW;
  const char* domainA;
  void* domainW;
  int type;
  long index;
  int extra1;
  void* extra2;
  CounterInfo* next;
};

// __itt_api_info: one entry of the static part's table of function pointers, ended by a null
// name. A collector stores its implementation through func_ptr.
struct ApiInfo {
  const char* name;
  void** func_ptr;
  void* init_func;
  void* null_func;
  int group;
};

// __itt_global, up to the last field we read. The layout is stable since 2011 (newer versions
// only append fields).
struct Global {
  unsigned char magic[8];
  unsigned long version_major;
  unsigned long version_minor;
  unsigned long version_build;
  volatile long api_initialized;
  volatile long mutex_initialized;
  volatile long atomic_counter;
  pthread_mutex_t mutex;
  void* lib;
  void* error_handler;
  const char** dll_path_ptr;
  ApiInfo* api_list_ptr;
  Global* next;
  void* thread_list;
  Domain* domain_list;
  StringHandle* string_list;
  int state;
  CounterInfo* counter_list;
};
static_assert(offsetof(Global, api_list_ptr) == 120 && offsetof(Global, domain_list) == 144,
              "__itt_global layout (Linux x86-64)");

// __itt_metadata_type.
enum MetadataType : int {
  kMetaUnknown = 0,
  kMetaU64 = 1,
  kMetaS64 = 2,
  kMetaU32 = 3,
  kMetaS32 = 4,
  kMetaU16 = 5,
  kMetaS16 = 6,
  kMetaFloat = 7,
  kMetaDouble = 8,
};

// __itt_timestamp; (unsigned long long)-1 is __itt_timestamp_none.
using Timestamp = unsigned long long;
inline constexpr Timestamp kTimestampNone = ~0ull;

}  // namespace tt::itt
