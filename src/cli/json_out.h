// A command's JSON output, with the damage its readers met: every command that reads traces
// prints `problems` the same way (file, offset, what, count), as stderr's damage lines say it.
#pragma once
#include <nlohmann/json.hpp>

namespace tt::cli {

// The damage noted so far (format/reader.h NotedDamage), one entry per kind.
nlohmann::json ProblemsJson();

// Prints `j` (indented, invalid UTF-8 replaced) with `problems` added where it has none.
void PrintCommandJson(nlohmann::json j);

}  // namespace tt::cli
