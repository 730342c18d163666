#include "sources/nvtx/nvtx_payload.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include "format/keys.h"
#include "runtime/process.h"

namespace tt::nvtx {
namespace {

// nvtxPayloadSchemaEntry_t, nvtxPayloadSchemaAttr_t, nvtxPayloadEnum_t, nvtxPayloadEnumAttr_t.
struct SchemaEntryAbi {
  uint64_t flags;
  uint64_t type;
  const char* name;
  const char* description;
  uint64_t array_or_union_detail;
  uint64_t offset;
  const void* semantics;
  const void* reserved;
};
struct SchemaAttrAbi {
  uint64_t field_mask;
  const char* name;
  uint64_t type;
  uint64_t flags;
  const SchemaEntryAbi* entries;
  size_t num_entries;
  size_t payload_static_size;
  size_t pack_align;
  uint64_t schema_id;
  void* extension;
};
struct EnumAbi {
  const char* name;
  uint64_t value;
  int8_t is_flag;
};
struct EnumAttrAbi {
  uint64_t field_mask;
  const char* name;
  const EnumAbi* entries;
  size_t num_entries;
  size_t size_of_enum;
  uint64_t schema_id;
  void* extension;
};
// nvtxExtModuleSegment_t and nvtxExtModuleInfo_t (nvtxDetail/nvtxExtTypes.h).
struct ExtSegment {
  size_t segment_id;
  size_t slot_count;
  intptr_t* function_slots;
};
struct ExtModuleInfo {
  uint16_t nvtx_ver;
  uint16_t struct_size;
  uint16_t module_id;
  uint16_t compat_id;
  size_t segments_count;
  ExtSegment* segments;
  void* get_export_function;
  const void* ext_info;
};

constexpr uint16_t kPayloadModuleId = 2;  // NVTX_EXT_PAYLOAD_MODULEID
// NVTX3EXT_CBID_*: indexes into the payload module's one segment.
constexpr size_t kCbidSchemaRegister = 0, kCbidEnumRegister = 1, kCbidDomainIsEnabled = 7;

constexpr uint64_t kAttrEntries = 1 << 4, kAttrNumEntries = 1 << 5, kAttrStaticSize = 1 << 6,
                   kAttrSchemaId = 1 << 8;
constexpr uint64_t kEnumAttrEntries = 1 << 2, kEnumAttrNumEntries = 1 << 3, kEnumAttrSize = 1 << 4,
                   kEnumAttrSchemaId = 1 << 5;
constexpr uint64_t kFlagPointer = 1 << 1, kFlagArrayMask = 7 << 4, kFlagArrayFixed = 1 << 4,
                   kFlagHide = 1 << 9;
constexpr uint64_t kFirstDynamicId = 256;  // static ids start at 1 << 24

// Entry types (NVTX_PAYLOAD_ENTRY_TYPE_*) that we decode.
enum EntryType : uint64_t {
  kChar = 1,
  kUchar,
  kShort,
  kUshort,
  kInt,
  kUint,
  kLong,
  kUlong,
  kLongLong,
  kUlongLong,
  kInt8,
  kUint8,
  kInt16,
  kUint16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kFloat,
  kDouble,
  kSize = 22,
  kAddress = 23,
  kFloat32 = 43,
  kFloat64 = 44,
  kCategory = 68,
  kColor = 69,
  kScopeId = 70,
  kPid32 = 71,
  kPid64 = 72,
  kTid32 = 73,
  kTid64 = 74,
  kCString = 75,
  kCStringUtf8 = 76,
  kRegisteredString = 80,
};

constexpr size_t kMaxEntries = 24;
struct Schema {
  uint32_t domain;
  uint64_t id;
  size_t static_size;
  size_t n;
  struct {
    uint64_t flags, type, detail, offset;
    const char* name;
  } e[kMaxEntries];
};
constexpr size_t kMaxEnumValues = 32;
struct Enum {
  uint32_t domain;
  uint64_t id;
  size_t size;
  size_t n;
  struct {
    uint64_t value;
    const char* name;
  } v[kMaxEnumValues];
};

constexpr size_t kMaxSchemas = 256, kMaxEnums = 64;
Schema g_schemas[kMaxSchemas];
std::atomic<size_t> g_nschemas{0};
Enum g_enums[kMaxEnums];
std::atomic<size_t> g_nenums{0};
uint64_t g_next_id = kFirstDynamicId;
std::mutex& RegistryLock() {
  static auto* m = new std::mutex;
  return *m;
}

const char* Copy(const char* s) {
  if (!s) return nullptr;
  size_t n = std::strlen(s) + 1;
  char* c = new char[n];
  std::memcpy(c, s, n);
  return c;
}

uint32_t IndexOf(const Domain* d) { return d ? d->index : 0; }

uint64_t SchemaRegister(const Domain* d, const SchemaAttrAbi* a) {
  if (!a || !(a->field_mask & kAttrEntries) || !(a->field_mask & kAttrNumEntries) || !a->entries)
    return 0;
  std::lock_guard<std::mutex> l(RegistryLock());
  size_t n = g_nschemas.load(std::memory_order_relaxed);
  if (n == kMaxSchemas) return 0;
  Schema& s = g_schemas[n];
  s.domain = IndexOf(d);
  s.id = a->field_mask & kAttrSchemaId ? a->schema_id : g_next_id++;
  s.static_size = a->field_mask & kAttrStaticSize ? a->payload_static_size : 0;
  s.n = 0;
  for (size_t i = 0; i < a->num_entries && s.n < kMaxEntries; ++i) {
    const SchemaEntryAbi& e = a->entries[i];
    s.e[s.n++] = {e.flags, e.type, e.array_or_union_detail, e.offset, Copy(e.name)};
  }
  g_nschemas.store(n + 1, std::memory_order_release);  // readers see it whole
  return s.id;
}

uint64_t EnumRegister(const Domain* d, const EnumAttrAbi* a) {
  if (!a || !(a->field_mask & kEnumAttrEntries) || !(a->field_mask & kEnumAttrNumEntries) ||
      !a->entries)
    return 0;
  std::lock_guard<std::mutex> l(RegistryLock());
  size_t n = g_nenums.load(std::memory_order_relaxed);
  if (n == kMaxEnums) return 0;
  Enum& en = g_enums[n];
  en.domain = IndexOf(d);
  en.id = a->field_mask & kEnumAttrSchemaId ? a->schema_id : g_next_id++;
  en.size = a->field_mask & kEnumAttrSize ? a->size_of_enum : 4;
  en.n = 0;
  for (size_t i = 0; i < a->num_entries && en.n < kMaxEnumValues; ++i)
    en.v[en.n++] = {a->entries[i].value, Copy(a->entries[i].name)};
  g_nenums.store(n + 1, std::memory_order_release);
  return en.id;
}

uint8_t DomainIsEnabled(const Domain*) { return 1; }

const Schema* FindSchema(uint32_t domain, uint64_t id) {
  size_t n = g_nschemas.load(std::memory_order_acquire);
  for (size_t i = n; i-- > 0;)  // the latest registration wins
    if (g_schemas[i].id == id && g_schemas[i].domain == domain) return &g_schemas[i];
  return nullptr;
}

const Enum* FindEnum(uint32_t domain, uint64_t id) {
  size_t n = g_nenums.load(std::memory_order_acquire);
  for (size_t i = n; i-- > 0;)
    if (g_enums[i].id == id && g_enums[i].domain == domain) return &g_enums[i];
  return nullptr;
}

// NCCL names its fields for people ("Message size [bytes]"); these are the keys we use.
const char* KeyOf(const char* name) {
  static const char* const kRenames[][2] = {{"NCCL communicator ID", keys::kCommunicator},
                                            {"Message size [bytes]", keys::kBytes},
                                            {"Reduction operation", keys::kReduction},
                                            {"No. of ranks", keys::kNranks},
                                            {"Rank", keys::kRank},
                                            {"CUDA device", keys::kDevice}};
  if (!name) return "field";
  for (const auto& r : kRenames)
    if (std::strcmp(name, r[0]) == 0) return r[1];
  return name;
}

template <typename T>
T Read(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Size and kind of a scalar entry type; 0 for types we do not decode.
size_t ScalarSize(uint64_t type, Field::Kind* kind) {
  switch (type) {
    case kChar:
    case kInt8:
      *kind = Field::kInt;
      return 1;
    case kUchar:
    case kUint8:
      *kind = Field::kUint;
      return 1;
    case kShort:
    case kInt16:
      *kind = Field::kInt;
      return 2;
    case kUshort:
    case kUint16:
      *kind = Field::kUint;
      return 2;
    case kInt:
    case kInt32:
      *kind = Field::kInt;
      return 4;
    case kUint:
    case kUint32:
    case kCategory:
    case kColor:
    case kPid32:
    case kTid32:
      *kind = Field::kUint;
      return 4;
    case kLong:
    case kLongLong:
    case kInt64:
      *kind = Field::kInt;
      return 8;
    case kUlong:
    case kUlongLong:
    case kUint64:
    case kSize:
    case kAddress:
    case kScopeId:
    case kPid64:
    case kTid64:
      *kind = Field::kUint;
      return 8;
    case kFloat:
    case kFloat32:
      *kind = Field::kFloat;
      return 4;
    case kDouble:
    case kFloat64:
      *kind = Field::kFloat;
      return 8;
    default:
      return 0;
  }
}

}  // namespace

bool DecodePayload(const Domain* d, const PayloadData& data, void (*add)(void*, const Field&),
                   void* ctx) {
  const auto* base = static_cast<const uint8_t*>(data.payload);
  const Schema* s = base ? FindSchema(IndexOf(d), data.schema_id) : nullptr;
  if (!s) return false;
  // SIZE_MAX: the client did not say; then the schema's static size bounds the reads.
  size_t limit = data.size != SIZE_MAX ? data.size : s->static_size;
  for (size_t i = 0; i < s->n; ++i) {
    const auto& e = s->e[i];
    if (e.flags & kFlagHide) continue;
    Field f{KeyOf(e.name), Field::kInt, 0, 0, 0, nullptr};
    const uint8_t* p = base + e.offset;
    uint64_t array = e.flags & kFlagArrayMask;
    if (e.type == kCString || e.type == kCStringUtf8) {
      if (array == kFlagArrayFixed) {  // an inline char array
        if (limit && e.offset + e.detail > limit) continue;
        f.s = reinterpret_cast<const char*>(p);
        char buf[256];
        size_t n = strnlen(f.s, e.detail < sizeof buf ? e.detail : sizeof buf - 1);
        std::memcpy(buf, f.s, n);
        buf[n] = 0;
        f.kind = Field::kString;
        f.s = buf;
        add(ctx, f);
        continue;
      }
      if (array || (limit && e.offset + 8 > limit)) continue;
      f.s = Read<const char*>(p);
      if (!f.s) continue;
      f.kind = Field::kString;
      add(ctx, f);
      continue;
    }
    if (array || (e.flags & kFlagPointer)) continue;  // arrays and pointed-to data: not yet
    if (e.type == kRegisteredString) {
      if (limit && e.offset + 8 > limit) continue;
      const auto* h = Read<const String*>(p);
      if (!h || !h->str) continue;
      f.kind = Field::kString;
      f.s = h->str;
      add(ctx, f);
      continue;
    }
    Field::Kind kind;
    size_t size = ScalarSize(e.type, &kind);
    const Enum* en = size ? nullptr : FindEnum(IndexOf(d), e.type);
    if (en) {
      size = en->size;
      kind = Field::kUint;
    }
    if (size == 0 || size > 8 || (limit && e.offset + size > limit)) continue;
    uint64_t raw = 0;
    std::memcpy(&raw, p, size);  // little-endian
    f.kind = kind;
    if (kind == Field::kFloat) {
      f.f = size == 4 ? static_cast<double>(Read<float>(p)) : Read<double>(p);
    } else if (kind == Field::kInt) {
      int shift = static_cast<int>(64 - 8 * size);
      f.i = static_cast<int64_t>(raw << shift) >> shift;  // sign-extend
    } else {
      f.u = raw;
    }
    if (en) {
      for (size_t k = 0; k < en->n; ++k) {
        if (en->v[k].value == raw) {
          f.kind = Field::kString;
          f.s = en->v[k].name;
          break;
        }
      }
    }
    add(ctx, f);
  }
  return true;
}

}  // namespace tt::nvtx

// The payload extension's entry: each client DSO's extension module calls it once (looked up
// in the library NVTX_INJECTION64_PATH names); we serve the schema and enum registrations.
// Other extension modules (counters, memory, ...) get no functions: their calls are no-ops.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(
    void* module_info) {
  using namespace tt::nvtx;
  auto* m = static_cast<ExtModuleInfo*>(module_info);
  if (!m || !tt::rt::Enabled()) return 0;
  if (m->module_id != kPayloadModuleId || m->segments_count < 1 || !m->segments) return 1;
  ExtSegment& seg = m->segments[0];
  if (!seg.function_slots) return 1;
  auto set = [&](size_t cbid, auto* fn) {
    if (cbid < seg.slot_count) seg.function_slots[cbid] = reinterpret_cast<intptr_t>(fn);
  };
  set(kCbidSchemaRegister, &SchemaRegister);
  set(kCbidEnumRegister, &EnumRegister);
  set(kCbidDomainIsEnabled, &DomainIsEnabled);
  return 1;
}
