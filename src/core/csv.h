// CSV quoting (RFC 4180): a field holding a comma, quote or line break is quoted, its quotes
// doubled. Shared by `stats --csv` and the CSV export.
#pragma once
#include <string>
#include <string_view>

namespace tt {

inline std::string CsvQuote(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

}  // namespace tt
