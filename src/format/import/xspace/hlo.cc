#include "format/import/xspace/hlo.h"

#include <string>

#include "format/import/xspace/hlo_wire.h"

namespace tt {

namespace {

using hlo_wire::Each;
using hlo_wire::ElementBytes;
using hlo_wire::Wire;

// An xla.ShapeProto's bytes: element_type (2), dimensions (3), tuple_shapes (4); -1 unknown.
int64_t ShapeBytes(std::string_view shape, int depth) {
  if (depth > 8) return -1;
  Wire w(shape);
  uint32_t field, type;
  uint64_t v;
  std::string_view b;
  int64_t element = -1, count = 1, tuple = 0;
  bool is_tuple = false;
  auto dim = [&](uint64_t d) {
    if (d > (uint64_t{1} << 40) ||
        (count > 0 && static_cast<uint64_t>(count) > (uint64_t{1} << 62) / (d ? d : 1)))
      count = -1;
    else if (count >= 0)
      count *= static_cast<int64_t>(d);
  };
  while (w.Next(&field, &type, &v, &b)) {
    if (field == 2 && type == 0) {
      element = ElementBytes(v);
      is_tuple = v == 13;
    } else if (field == 3 && type == 0) {
      dim(v);
    } else if (field == 3 && type == 2) {  // packed
      Wire d(b);
      uint64_t x;
      while (d.p < d.end && d.Varint(&x)) dim(x);
      if (!d.ok) return -1;
    } else if (field == 4 && type == 2) {
      int64_t t = ShapeBytes(b, depth + 1);
      tuple = t < 0 || tuple < 0 ? -1 : tuple + t;
    }
  }
  if (!w.ok) return -1;
  if (is_tuple) return tuple;
  return element > 0 && count >= 0 ? element * count : -1;
}

bool Collective(std::string_view opcode) {
  for (std::string_view c :
       {"all-reduce", "all-reduce-start", "all-gather", "all-gather-start", "reduce-scatter",
        "all-to-all", "ragged-all-to-all", "collective-permute", "collective-permute-start",
        "collective-broadcast"})
    if (opcode == c) return true;
  return false;
}

// An xla.HloInstructionProto: name (1), opcode (2), shape (3).
void ReadInstruction(std::string_view in, int64_t program, HloCollectiveBytes* out, bool* ok) {
  Wire w(in);
  uint32_t field, type;
  uint64_t v;
  std::string_view b, name, opcode, shape;
  while (w.Next(&field, &type, &v, &b))
    if (type == 2 && field == 1)
      name = b;
    else if (type == 2 && field == 2)
      opcode = b;
    else if (type == 2 && field == 3)
      shape = b;
  if (!w.ok) *ok = false;
  if (!Collective(opcode) || name.empty()) return;
  int64_t bytes = ShapeBytes(shape, 0);
  if (bytes >= 0) (*out)[{program, std::string(name)}] = bytes;
}

// An xla.HloInstructionProto's name (1), id (35) and operand_ids (36, packed or not).
struct Operands {
  std::string_view name;
  uint64_t id = 0;
  std::vector<uint64_t> operands;
};

Operands ReadOperands(std::string_view in, bool* ok) {
  Operands o;
  Wire w(in);
  uint32_t field, type;
  uint64_t v;
  std::string_view b;
  while (w.Next(&field, &type, &v, &b))
    if (type == 2 && field == 1) {
      o.name = b;
    } else if (type == 0 && field == 35) {
      o.id = v;
    } else if (type == 0 && field == 36) {
      o.operands.push_back(v);
    } else if (type == 2 && field == 36) {
      Wire packed(b);
      while (packed.p < packed.end && packed.Varint(&v)) o.operands.push_back(v);
      if (!packed.ok) *ok = false;
    }
  if (!w.ok) *ok = false;
  return o;
}

}  // namespace

bool ReadHloOperands(std::string_view hlo_proto, int64_t program, HloOperands* out) {
  bool ok = true;
  auto& names = (*out)[program];
  // An instruction's operands are instructions of its own computation.
  ok &= Each(hlo_proto, 1, [&](std::string_view module) {
    ok &= Each(module, 3, [&](std::string_view computation) {
      std::vector<Operands> all;
      std::unordered_map<uint64_t, std::string_view> by_id;
      ok &= Each(computation, 2, [&](std::string_view in) {
        all.push_back(ReadOperands(in, &ok));
        by_id[all.back().id] = all.back().name;
      });
      for (const Operands& o : all) {
        if (o.name.empty()) continue;
        std::string list;
        for (uint64_t id : o.operands)
          if (auto it = by_id.find(id); it != by_id.end() && !it->second.empty())
            list.append(list.empty() ? "" : ",").append(it->second);
        names[std::string(o.name)] = std::move(list);
      }
    });
  });
  return ok;
}

bool ReadHloCollectives(std::string_view hlo_proto, int64_t program, HloCollectiveBytes* out) {
  bool ok = true;
  // HloProto.hlo_module (1) -> HloModuleProto.computations (3) -> HloComputationProto
  // .instructions (2).
  ok &= Each(hlo_proto, 1, [&](std::string_view module) {
    ok &= Each(module, 3, [&](std::string_view computation) {
      ok &= Each(computation, 2,
                 [&](std::string_view in) { ReadInstruction(in, program, out, &ok); });
    });
  });
  return ok;
}

int64_t HloProgramOfName(std::string_view name) {
  if (!name.ends_with(')')) return -1;
  size_t open = name.rfind('(');
  if (open == std::string_view::npos || open + 2 > name.size() - 1) return -1;
  int64_t id = 0;
  for (size_t i = open + 1; i + 1 < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || id > (INT64_MAX - 9) / 10) return -1;
    id = id * 10 + (name[i] - '0');
  }
  return id;
}

}  // namespace tt
