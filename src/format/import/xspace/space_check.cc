// CheckSpace (space_file.h): whether an XSpace's bytes parse as protobuf's generated classes
// would parse them, checked once over the whole file before the import reads any of it (a
// damaged file is skipped whole, as when it was parsed into messages), and what the import
// will hold beside the file.
#include <google/protobuf/stubs/common.h>

#include <algorithm>
#include <climits>
#include <iterator>

#include "format/import/xspace/space_file.h"

namespace tt::xspace {

namespace {

enum class Kind : uint8_t { kVarint, kFixed64, kString, kBytes, kMessage, kRepeatedVarint };

struct Spec;
struct FieldSpec {
  uint32_t number;
  Kind kind;
  const Spec* message = nullptr;
};
struct Spec {
  const FieldSpec* fields;
  size_t size;
};

// format/proto/xplane.proto; a map field is a repeated entry message (key 1, value 2).
constexpr FieldSpec kStatFields[] = {{1, Kind::kVarint}, {2, Kind::kFixed64}, {3, Kind::kVarint},
                                     {4, Kind::kVarint}, {5, Kind::kString},  {6, Kind::kBytes},
                                     {7, Kind::kVarint}};
constexpr Spec kStat{kStatFields, std::size(kStatFields)};
constexpr FieldSpec kStatMetadataFields[] = {
    {1, Kind::kVarint}, {2, Kind::kString}, {3, Kind::kString}};
constexpr Spec kStatMetadata{kStatMetadataFields, std::size(kStatMetadataFields)};
constexpr FieldSpec kEventMetadataFields[] = {{1, Kind::kVarint},          {2, Kind::kString},
                                              {4, Kind::kString},          {3, Kind::kBytes},
                                              {5, Kind::kMessage, &kStat}, {6, Kind::kRepeatedVarint}};
constexpr Spec kEventMetadata{kEventMetadataFields, std::size(kEventMetadataFields)};
constexpr FieldSpec kEventFields[] = {{1, Kind::kVarint},
                                      {2, Kind::kVarint},
                                      {5, Kind::kVarint},
                                      {3, Kind::kVarint},
                                      {4, Kind::kMessage, &kStat}};
constexpr Spec kEvent{kEventFields, std::size(kEventFields)};
constexpr FieldSpec kLineFields[] = {{1, Kind::kVarint}, {10, Kind::kVarint},
                                     {2, Kind::kString}, {11, Kind::kString},
                                     {3, Kind::kVarint}, {9, Kind::kVarint},
                                     {4, Kind::kMessage, &kEvent}};
constexpr Spec kLine{kLineFields, std::size(kLineFields)};
constexpr FieldSpec kEventEntryFields[] = {{1, Kind::kVarint},
                                           {2, Kind::kMessage, &kEventMetadata}};
constexpr Spec kEventEntry{kEventEntryFields, std::size(kEventEntryFields)};
constexpr FieldSpec kStatEntryFields[] = {{1, Kind::kVarint}, {2, Kind::kMessage, &kStatMetadata}};
constexpr Spec kStatEntry{kStatEntryFields, std::size(kStatEntryFields)};
constexpr FieldSpec kPlaneFields[] = {{1, Kind::kVarint},
                                      {2, Kind::kString},
                                      {3, Kind::kMessage, &kLine},
                                      {4, Kind::kMessage, &kEventEntry},
                                      {5, Kind::kMessage, &kStatEntry},
                                      {6, Kind::kMessage, &kStat}};
constexpr Spec kPlane{kPlaneFields, std::size(kPlaneFields)};
constexpr FieldSpec kSpaceFields[] = {{1, Kind::kMessage, &kPlane},
                                      {2, Kind::kString},
                                      {3, Kind::kString},
                                      {4, Kind::kString}};
constexpr Spec kSpace{kSpaceFields, std::size(kSpaceFields)};

// Whether wire type `type` is the field's own (another makes it an unknown field, skipped).
bool Matches(Kind k, uint32_t type) {
  switch (k) {
    case Kind::kVarint:
      return type == 0;
    case Kind::kFixed64:
      return type == 1;
    case Kind::kRepeatedVarint:
      return type == 0 || type == 2;
    default:
      return type == 2;
  }
}

bool Check(std::string_view msg, const Spec& spec, int depth) {
  if (depth > 100) return false;
  hlo_wire::Wire w(msg);
  Field x;
  while (NextField(&w, &x, depth)) {
    const FieldSpec* f = nullptr;
    for (size_t i = 0; i < spec.size; ++i)
      if (spec.fields[i].number == x.number) f = &spec.fields[i];
    if (!f || !Matches(f->kind, x.type)) continue;
    if (x.type == 2 && x.bytes.size() > INT_MAX) return false;
    if (f->kind == Kind::kString &&
        !google::protobuf::internal::IsStructurallyValidUTF8(x.bytes.data(),
                                                             static_cast<int>(x.bytes.size())))
      return false;
    if (f->kind == Kind::kMessage && !Check(x.bytes, *f->message, depth + 1)) return false;
    if (f->kind == Kind::kRepeatedVarint && x.type == 2) {  // packed: whole varints only
      hlo_wire::Wire packed(x.bytes);
      uint64_t v;
      while (packed.p < packed.end)
        if (!packed.Varint(&v)) return false;
    }
  }
  return w.ok;
}

}  // namespace

bool CheckSpace(std::string_view data, SpaceShape* shape) {
  if (!Check(data, kSpace, 0)) return false;
  // PlaneView's maps, and a set's node (about 64 bytes) and text per event metadata name.
  *shape = {};
  ForEachPlane(data, [&](std::string_view plane) {
    uint64_t events = 0, stats = 0;
    ForEachMessage(plane, 4, [&](std::string_view) { ++events; });
    ForEachMessage(plane, 5, [&](std::string_view) { ++stats; });
    uint64_t bytes = events * sizeof(std::pair<int64_t, EventMetadataView>) +
                     stats * sizeof(std::pair<int64_t, std::string_view>);
    shape->plane_metadata_bytes = std::max(shape->plane_metadata_bytes, bytes);
    ForEachEventMetadataName(plane, [&](std::string_view name) {
      shape->name_bytes += 64 + (name.size() > 15 ? name.size() + 1 : 0);
    });
  });
  return true;
}

}  // namespace tt::xspace
