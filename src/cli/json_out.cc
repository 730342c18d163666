#include "cli/json_out.h"

#include <iostream>

#include "format/reader.h"

namespace tt::cli {

nlohmann::json ProblemsJson() {
  nlohmann::json out = nlohmann::json::array();
  for (const DamageKind& k : NotedDamage())
    out.push_back(
        {{"file", k.first.file}, {"offset", k.first.offset}, {"what", k.what}, {"count", k.count}});
  return out;
}

void PrintCommandJson(nlohmann::json j) {
  if (j.is_object() && !j.contains("problems")) j["problems"] = ProblemsJson();
  std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tt::cli
