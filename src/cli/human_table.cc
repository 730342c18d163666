// The human form of a table (human_table.h).
#include "cli/human_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/args.h"

namespace tt::cli {

namespace {

using analysis::Cell;
using analysis::ColumnKind;

constexpr double kMsFrom = 1000;    // a column whose values reach 1 ms is shown in ms
constexpr size_t kKeptColumns = 4;  // the key and at least three more stay

double ColumnMax(const HumanTable& t, size_t c) {
  double m = 0;
  for (const auto& r : t.rows)
    if (!r[c].is_text) m = std::max(m, std::fabs(r[c].num));
  return m;
}

// "self_micros" -> "self_ms", "micros" -> "ms".
std::string MsName(const std::string& name) {
  if (name == "micros") return "ms";
  if (name.ends_with("_micros")) return name.substr(0, name.size() - 6) + "ms";
  return name + "_ms";
}

std::string Format(const Cell& c, ColumnKind kind, bool ms) {
  if (!ms || c.is_text) return TerminalSafe(analysis::FormatCell(c, kind));
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", c.num / 1e3);
  return b;
}

void Erase(HumanTable* t, std::vector<bool>* ms, size_t c) {
  t->cols.erase(t->cols.begin() + static_cast<long>(c));
  ms->erase(ms->begin() + static_cast<long>(c));
  for (auto& r : t->rows) r.erase(r.begin() + static_cast<long>(c));
}

// The widest line of `cells` (each column as wide as its widest cell, two spaces between).
size_t LineWidth(const std::vector<std::vector<std::string>>& cells) {
  std::vector<size_t> w;
  for (const auto& row : cells) {
    w.resize(std::max(w.size(), row.size()), 0);
    for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  }
  size_t sum = w.empty() ? 0 : 2 * (w.size() - 1);
  for (size_t x : w) sum += x;
  return sum;
}

std::vector<std::vector<std::string>> Render(const HumanTable& t, const std::vector<bool>& ms) {
  std::vector<std::vector<std::string>> out(1);
  for (size_t c = 0; c < t.cols.size(); ++c)
    out[0].push_back(ms[c] ? MsName(t.cols[c].name) : t.cols[c].name);
  for (const auto& r : t.rows) {
    auto& line = out.emplace_back();
    for (size_t c = 0; c < t.cols.size(); ++c) line.push_back(Format(r[c], t.cols[c].kind, ms[c]));
  }
  return out;
}

void Print(const HumanTable& t, const std::vector<std::vector<std::string>>& cells) {
  std::vector<size_t> width(t.cols.size(), 0);
  for (const auto& row : cells)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : cells) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      bool left = t.cols[i].kind == ColumnKind::kText;
      std::string pad(width[i] - row[i].size(), ' ');
      line += (i ? "  " : "") + (left ? row[i] + (i + 1 < row.size() ? pad : "") : pad + row[i]);
    }
    std::cout << line << "\n";
  }
}

std::string List(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Leaves out numeric columns that are zero in every row, then the last columns, until a line
// fits `width` (the key and kKeptColumns - 1 more always stay); their names in `hidden`.
void Fit(HumanTable* t, std::vector<bool>* ms, size_t width, std::vector<std::string>* hidden) {
  for (size_t c = t->cols.size(); c-- > 1;) {
    if (t->cols[c].kind == ColumnKind::kText || t->cols[c].kind == ColumnKind::kBool) continue;
    bool zero = std::all_of(t->rows.begin(), t->rows.end(),
                            [&](const auto& r) { return !r[c].is_text && r[c].num == 0; });
    if (!zero) continue;
    hidden->insert(hidden->begin(), t->cols[c].name);
    Erase(t, ms, c);
  }
  while (t->cols.size() > kKeptColumns && LineWidth(Render(*t, *ms)) > width) {
    hidden->push_back(t->cols.back().name);
    Erase(t, ms, t->cols.size() - 1);
  }
}

}  // namespace

std::vector<std::string> PrintHumanTable(HumanTable t, bool fit, size_t width) {
  std::vector<std::string> notes;
  if (t.rows.empty()) return notes;
  std::vector<bool> ms(t.cols.size(), false);
  for (size_t c = 0; c < t.cols.size(); ++c)
    ms[c] = t.cols[c].kind == ColumnKind::kMicros && ColumnMax(t, c) >= kMsFrom;
  std::vector<std::string> hidden;
  if (fit) Fit(&t, &ms, width, &hidden);
  Print(t, Render(t, ms));
  std::vector<std::string> in_ms;
  for (size_t c = 0; c < t.cols.size(); ++c)
    if (ms[c]) in_ms.push_back(MsName(t.cols[c].name));
  if (!in_ms.empty())
    notes.push_back("in milliseconds: " + List(in_ms) +
                    " (the _micros fields; --json and --csv give microseconds)");
  if (!hidden.empty())
    notes.push_back("not shown (all zero, or to fit " + std::to_string(width) +
                    " characters): " + List(hidden) +
                    "; --select shows them, --json and --csv "
                    "carry every column");
  return notes;
}

std::string Wrap(const std::string& text, size_t first_col, size_t indent, size_t width) {
  std::string out, word;
  size_t col = first_col;
  auto flush = [&] {
    if (word.empty()) return;
    if (col > indent && col + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (col > first_col || (col > indent && !out.empty())) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    word.clear();
  };
  for (char ch : text) {
    if (ch == ' ')
      flush();
    else
      word += ch;
  }
  flush();
  return out;
}

}  // namespace tt::cli
