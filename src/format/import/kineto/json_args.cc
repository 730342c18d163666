// The Kineto importer's reading of trace-event JSON (json_args.h).
#include "format/import/kineto/json_args.h"

#include <charconv>
#include <cmath>
#include <initializer_list>
#include <utility>

namespace tt::kineto {

const json& Field(const json& o, const char* key) {
  static const json kNull;
  if (!o.is_object()) return kNull;
  auto it = o.find(key);
  return it == o.end() ? kNull : *it;
}

std::string FieldStr(const json& o, const char* key) {
  const json& v = Field(o, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

int64_t JsonInt(const json& v, int64_t dflt) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float() && std::isfinite(v.get<double>())) return std::llround(v.get<double>());
  return dflt;
}

size_t DtypeBytes(std::string_view t) {
  if (t.starts_with("c10::")) t.remove_prefix(5);
  for (auto [names, bytes] : std::initializer_list<std::pair<std::string_view, size_t>>{
           {"|Double|double|Long|long int|long|int64_t|ComplexFloat|", 8},
           {"|Float|float|Int|int|int32_t|unsigned int|", 4},
           {"|Half|BFloat16|Short|short int|short|", 2},
           {"|Byte|Char|Bool|bool|unsigned char|signed char|", 1}})
    if (!t.empty() && names.find("|" + std::string(t) + "|") != std::string_view::npos)
      return bytes;
  return 0;
}

int64_t InputBytes(const json& dims, const json& types) {
  if (!dims.is_array() || !types.is_array() || dims.size() != types.size()) return 0;
  int64_t total = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].is_array() || dims[i].empty() || !types[i].is_string()) continue;
    size_t eb = DtypeBytes(types[i].get<std::string>());
    if (!eb) return 0;
    int64_t n = 1;
    for (const auto& d : dims[i])
      n = d.is_number_integer() && d.get<int64_t>() >= 0 ? n * d.get<int64_t>() : 0;
    total += n * static_cast<int64_t>(eb);
  }
  return total;
}

int64_t Nelems(const json& dims) {
  if (!dims.is_array() || dims.empty() || !dims[0].is_array() || dims[0].empty()) return -1;
  auto count = [](const json& shape) {
    int64_t n = 1;
    for (const auto& d : shape)
      n = d.is_number_integer() && d.get<int64_t>() >= 0 ? n * d.get<int64_t>() : -1;
    return n;
  };
  if (!dims[0][0].is_array()) return count(dims[0]);
  int64_t total = 0;
  for (const auto& t : dims[0]) {
    if (!t.is_array() || count(t) < 0) return -1;
    total += count(t);
  }
  return total;
}

std::string FirstType(const json& types) {
  return types.is_array() && !types.empty() && types[0].is_string() ? types[0].get<std::string>()
                                                                    : std::string();
}

int64_t PeerRank(std::string_view collective, const json& args) {
  if (collective != "send" && collective != "recv") return -1;
  const json& in = Field(args, "Concrete Inputs");
  if (!in.is_array() || in.size() < 3 || !in[2].is_string()) return -1;
  const std::string& v = in[2].get_ref<const std::string&>();
  int64_t n = -1;
  auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  return r.ec == std::errc() && r.ptr == v.data() + v.size() ? n : -1;
}

namespace {

// DumpJson's common case into *out; false where nlohmann's serializer is needed (floats,
// objects, strings with bytes it would escape or that are not ASCII, nesting past 64).
bool DumpPlain(const json& v, std::string* out, int depth = 0) {
  char digits[24];
  switch (v.type()) {
    case json::value_t::array:
      if (depth > 64) return false;
      out->push_back('[');
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out->push_back(',');
        if (!DumpPlain(v[i], out, depth + 1)) return false;
      }
      out->push_back(']');
      return true;
    case json::value_t::number_integer:
      out->append(digits, std::to_chars(digits, digits + sizeof digits, v.get<int64_t>()).ptr);
      return true;
    case json::value_t::number_unsigned:
      out->append(digits, std::to_chars(digits, digits + sizeof digits, v.get<uint64_t>()).ptr);
      return true;
    case json::value_t::string: {
      const std::string& str = v.get_ref<const std::string&>();
      for (char c : str)
        if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 ||
            static_cast<unsigned char>(c) >= 0x80)
          return false;
      out->push_back('"');
      out->append(str);
      out->push_back('"');
      return true;
    }
    case json::value_t::boolean:
      out->append(v.get<bool>() ? "true" : "false");
      return true;
    case json::value_t::null:
      out->append("null");
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string DumpJson(const json& v) {
  std::string out;
  return DumpPlain(v, &out) ? out : v.dump();
}

std::string CollectiveKey(std::string_view name) {
  name.remove_prefix(name.rfind(':') == std::string_view::npos ? 0 : name.rfind(':') + 1);
  std::string key;
  for (char c : name)
    if (c != '_') key.push_back(c);
  return key;
}

}  // namespace tt::kineto
