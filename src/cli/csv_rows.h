// The CSV of a command that has a JSON: rows of the JSON written as CSV (RFC 4180, core/csv.h),
// so that --csv carries every field of the JSON's rows under the same names, units in them.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tt::cli {

// Writes `rows` (an array of JSON objects) to stdout as CSV: a header, then one line per row.
// The columns are the rows' fields: those named in `first` (where some row has them) in that
// order, then the others in the order the rows hold them. A nested object's fields are columns
// NAME.FIELD; an array of numbers or strings is one cell, its items separated by spaces; an
// empty array, or one of objects or arrays, is left out (it is another section); null is an empty
// cell. With no row, the header is `first`.
void PrintCsvRows(const nlohmann::json& rows, const std::vector<std::string>& first = {});

// `row` with the fields of `owner` added (what a nested row belongs to: its allocator, its pid).
nlohmann::json WithOwner(const nlohmann::json& owner, const nlohmann::json& row);

}  // namespace tt::cli
