// JSON rows as CSV (csv_rows.h).
#include "cli/csv_rows.h"

#include <algorithm>
#include <iostream>

#include "core/csv.h"

namespace tt::cli {

using nlohmann::json;

namespace {

bool IsScalar(const json& v) { return !v.is_object() && !v.is_array(); }

std::string Cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return CsvQuote(v.get<std::string>());
  if (v.is_array()) {
    std::string out;
    for (const auto& x : v)
      out += (out.empty() ? "" : " ") + (x.is_string() ? x.get<std::string>() : x.dump());
    return CsvQuote(out);
  }
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The row as (column, value) pairs: nested objects flattened, arrays of rows left out.
void Flatten(const json& row, const std::string& prefix,
             std::vector<std::pair<std::string, json>>* out) {
  for (const auto& [k, v] : row.items()) {
    if (v.is_object()) {
      Flatten(v, prefix + k + ".", out);
    } else if (v.is_array() && (v.empty() || !std::all_of(v.begin(), v.end(), IsScalar))) {
      continue;
    } else {
      out->emplace_back(prefix + k, v);
    }
  }
}

}  // namespace

void PrintCsvRows(const json& rows, const std::vector<std::string>& first) {
  std::vector<std::vector<std::pair<std::string, json>>> flat;
  std::vector<std::string> seen;
  for (const auto& r : rows) {
    Flatten(r, "", &flat.emplace_back());
    for (const auto& [k, v] : flat.back())
      if (std::find(seen.begin(), seen.end(), k) == seen.end()) seen.push_back(k);
  }
  std::vector<std::string> cols;
  for (const auto& f : first)  // with no row: the header of the columns named
    if (flat.empty() || std::find(seen.begin(), seen.end(), f) != seen.end()) cols.push_back(f);
  for (const auto& k : seen)
    if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
  std::string line;
  for (size_t i = 0; i < cols.size(); ++i) line += (i ? "," : "") + CsvQuote(cols[i]);
  std::cout << line << "\n";
  for (const auto& r : flat) {
    line.clear();
    for (size_t i = 0; i < cols.size(); ++i) {
      auto it =
          std::find_if(r.begin(), r.end(), [&](const auto& kv) { return kv.first == cols[i]; });
      line += (i ? "," : "") + (it == r.end() ? std::string() : Cell(it->second));
    }
    std::cout << line << "\n";
  }
}

json WithOwner(const json& owner, const json& row) {
  json out = row;
  for (const auto& [k, v] : owner.items()) out[k] = v;
  return out;
}

}  // namespace tt::cli
