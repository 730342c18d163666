#include "sources/nvtx/nvtx_handles.h"

#include <atomic>
#include <cstring>
#include <mutex>

namespace tt::nvtx {
namespace {

constexpr uint32_t kMaxDomains = 256;
constexpr uint32_t kMaxStrings = 8192;
constexpr uint32_t kCategorySlots = 1024;  // open addressing; a power of two

// Fixed pools: handles must stay valid for the process's life, even after exit() has begun
// (late calls from other threads), so nothing here has a destructor.
std::mutex& PoolLock() {
  static auto* m = new std::mutex;
  return *m;
}
Domain g_default{"", layout::Category::kFrameworkOp, 0};
Domain g_domains[kMaxDomains];
uint32_t g_ndomains = 0;
String g_strings[kMaxStrings];
uint32_t g_nstrings = 0;

struct CategorySlot {
  std::atomic<uint64_t> key;  // (domain index << 32 | category) + 1; 0: free
  std::atomic<const char*> name;
};
CategorySlot g_categories[kCategorySlots];

uint64_t CategoryKey(const Domain* d, uint32_t category) {
  uint64_t index = d ? d->index : 0;
  return ((index << 32) | category) + 1;
}

// The i-th probe for a category key.
size_t Probe(uint64_t key, uint32_t i) {
  return ((key * 0x9E3779B97F4A7C15ull >> 40) + i) & (kCategorySlots - 1);
}

const char* Copy(const char* s) {
  size_t n = std::strlen(s) + 1;
  char* c = new char[n];
  std::memcpy(c, s, n);
  return c;
}

}  // namespace

const Domain* DefaultDomain() { return &g_default; }

layout::Category DomainCategory(const char* name) {
  if (!name || !*name) return layout::Category::kFrameworkOp;
  if (std::strcmp(name, "TSL") == 0) return layout::Category::kFrameworkOp;
  if (std::strcmp(name, "NCCL") == 0) return layout::Category::kCommunication;
  return layout::Category::kUser;
}

Domain* CreateDomain(const char* name, bool* created) {
  *created = false;
  if (!name) return nullptr;
  std::lock_guard<std::mutex> l(PoolLock());
  for (uint32_t i = 0; i < g_ndomains; ++i)
    if (std::strcmp(g_domains[i].name, name) == 0) return &g_domains[i];
  if (g_ndomains == kMaxDomains) return nullptr;
  Domain* d = &g_domains[g_ndomains];
  d->name = Copy(name);
  d->category = DomainCategory(name);
  d->index = ++g_ndomains;
  *created = true;
  return d;
}

String* RegisterString(const char* s) {
  if (!s) return nullptr;
  std::lock_guard<std::mutex> l(PoolLock());
  // Clients register each string once and keep the handle, so a linear search is rare work.
  for (uint32_t i = 0; i < g_nstrings; ++i)
    if (std::strcmp(g_strings[i].str, s) == 0) return &g_strings[i];
  if (g_nstrings == kMaxStrings) return nullptr;
  g_strings[g_nstrings].str = Copy(s);
  return &g_strings[g_nstrings++];
}

void NameCategory(const Domain* d, uint32_t category, const char* name) {
  if (!name) return;
  uint64_t key = CategoryKey(d, category);
  std::lock_guard<std::mutex> l(PoolLock());
  for (uint32_t i = 0; i < kCategorySlots; ++i) {
    CategorySlot& s = g_categories[Probe(key, i)];
    uint64_t k = s.key.load(std::memory_order_relaxed);
    if (k != 0 && k != key) continue;
    // The name before the key: a reader that sees the key sees its name.
    s.name.store(Copy(name), std::memory_order_release);
    s.key.store(key, std::memory_order_release);
    return;
  }
}

const char* CategoryName(const Domain* d, uint32_t category) {
  uint64_t key = CategoryKey(d, category);
  for (uint32_t i = 0; i < kCategorySlots; ++i) {
    const CategorySlot& s = g_categories[Probe(key, i)];
    uint64_t k = s.key.load(std::memory_order_acquire);
    if (k == 0) return nullptr;
    if (k == key) return s.name.load(std::memory_order_acquire);
  }
  return nullptr;
}

void WideToUtf8(const wchar_t* w, char* out, size_t cap) {
  size_t n = 0;
  for (; w && *w; ++w) {
    uint32_t c = static_cast<uint32_t>(*w);
    char buf[4];
    size_t len;
    if (c < 0x80) {
      buf[0] = static_cast<char>(c);
      len = 1;
    } else if (c < 0x800) {
      buf[0] = static_cast<char>(0xC0 | c >> 6);
      buf[1] = static_cast<char>(0x80 | (c & 0x3F));
      len = 2;
    } else if (c < 0x10000) {
      buf[0] = static_cast<char>(0xE0 | c >> 12);
      buf[1] = static_cast<char>(0x80 | (c >> 6 & 0x3F));
      buf[2] = static_cast<char>(0x80 | (c & 0x3F));
      len = 3;
    } else if (c < 0x110000) {
      buf[0] = static_cast<char>(0xF0 | c >> 18);
      buf[1] = static_cast<char>(0x80 | (c >> 12 & 0x3F));
      buf[2] = static_cast<char>(0x80 | (c >> 6 & 0x3F));
      buf[3] = static_cast<char>(0x80 | (c & 0x3F));
      len = 4;
    } else {
      continue;  // not a code point
    }
    if (n + len + 1 > cap) break;
    std::memcpy(out + n, buf, len);
    n += len;
  }
  if (cap) out[n] = 0;
}

}  // namespace tt::nvtx
