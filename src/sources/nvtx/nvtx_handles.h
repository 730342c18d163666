// What the NVTX collector hands out and remembers: domains, registered strings and category
// names. Created on the clients' slow paths (under a lock, allocated once, never freed, so a
// client may cache a handle for the life of the process); read lock-free on the hot path.
#pragma once
#include <cstdint>

#include "format/layout.h"
#include "sources/nvtx/nvtx_abi.h"

namespace tt::nvtx {

struct Domain {
  const char* name;           // "" for the default domain (calls without a domain)
  layout::Category category;  // what the domain's ranges become (DomainCategory)
  uint32_t index;             // 0 for the default domain
};

struct String {
  const char* str;
};

// The domain of the calls without one: PyTorch's (torch.autograd.profiler.emit_nvtx) ranges.
const Domain* DefaultDomain();
// One handle per name; null when the pool is full or name is null (clients accept null).
// *created says whether this call made it.
Domain* CreateDomain(const char* name, bool* created);
String* RegisterString(const char* s);

// Domain "TSL" (TensorFlow, JAX and XLA annotations) holds framework ops, "NCCL" collectives,
// the default domain PyTorch's ops; any other domain user annotations.
layout::Category DomainCategory(const char* name);

// Category names are per domain; null when the category was not named.
void NameCategory(const Domain* d, uint32_t category, const char* name);
const char* CategoryName(const Domain* d, uint32_t category);

// Wide strings (UTF-32 on Linux) as UTF-8, truncated to fit `cap` bytes with the terminator.
void WideToUtf8(const wchar_t* w, char* out, size_t cap);

}  // namespace tt::nvtx
