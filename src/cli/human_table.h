// The human form of a table, for every command that prints one: columns aligned (text left,
// numbers right), microsecond columns in milliseconds where their values reach a millisecond,
// and, when the user did not choose the columns, those that are zero in every row left out,
// then the last ones, until a line fits the terminal's 120 characters. What was changed or
// left out is said in notes; --json and --csv always carry every column in its own unit.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/views/view.h"

namespace tt::cli {

struct HumanColumn {
  std::string name;
  analysis::ColumnKind kind = analysis::ColumnKind::kText;
};

struct HumanTable {
  std::vector<HumanColumn> cols;                  // the first is the row's key
  std::vector<std::vector<analysis::Cell>> rows;  // a cell per column
};

inline constexpr size_t kTerminalWidth = 120;

// A cell holding a number (in its column's unit), or text.
inline analysis::Cell NumberCell(double x) {
  analysis::Cell c;
  c.num = x;
  return c;
}
inline analysis::Cell TextCell(std::string text) {
  analysis::Cell c;
  c.is_text = true;
  c.text = std::move(text);
  return c;
}

// Prints `t` to stdout; returns the notes to print under it. `fit`: the columns are the
// defaults, so some may be left out to fit `width`.
std::vector<std::string> PrintHumanTable(HumanTable t, bool fit, size_t width = kTerminalWidth);

// `text` wrapped at `width` columns at its spaces, its first word at column `first_col` and
// continuation lines indented by `indent`.
std::string Wrap(const std::string& text, size_t first_col, size_t indent, size_t width = 95);

}  // namespace tt::cli
