// The report's ranks x steps heat maps (report_parts.h): for a job of two or more ranks, one
// row per rank (in rank order) and one cell per step, coloured by the step's duration, and by
// the time the rank waited in collectives for the others during it. A slow rank is a dark row,
// a slow step a dark column, a straggler's victims dark in the waiting map where it is light.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "export/report_parts.h"

namespace tt::exporter::report {

namespace {

using analysis::StepBreakdown;

constexpr double kWidth = 1000, kLeft = 70, kRight = 150, kTop = 30;
constexpr size_t kMaxColumns = 150;  // an even sample of the steps beyond it
constexpr char kFont[] = "font-family=\"sans-serif\" font-size=\"12\"";

// The cells: value per (rank, step number); NaN where the rank has no such step.
struct Grid {
  std::vector<int64_t> ranks;          // rows, in rank order
  std::vector<int64_t> steps;          // columns, in step order (an even sample of many)
  size_t all_steps = 0;                // before the sample
  std::vector<std::vector<double>> v;  // [row][column], ns
};

std::string Text(double x, double y, const std::string& s, const char* anchor = "start") {
  return "<text x=\"" + svg::Num(x) + "\" y=\"" + svg::Num(y) + "\" text-anchor=\"" + anchor +
         "\">" + svg::Escape(s) + "</text>\n";
}

std::string Cell(double x, double y, double w, double h, const std::string& fill,
                 const std::string& tip) {
  return "<rect x=\"" + svg::Num(x) + "\" y=\"" + svg::Num(y) + "\" width=\"" + svg::Num(w) +
         "\" height=\"" + svg::Num(h) + "\" fill=\"" + fill + "\"><title>" + svg::Escape(tip) +
         "</title></rect>\n";
}

// A sequential scale, light (low) to dark (high): pale yellow, orange, dark red.
std::string Colour(double t) {
  static const double stops[3][3] = {{255, 255, 204}, {253, 141, 60}, {128, 0, 38}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  int i = t < 0.5 ? 0 : 1;
  double f = t < 0.5 ? t * 2 : (t - 0.5) * 2;
  char b[8];
  int c[3];
  for (int k = 0; k < 3; ++k)
    c[k] = static_cast<int>(std::lround(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f));
  std::snprintf(b, sizeof b, "#%02x%02x%02x", c[0], c[1], c[2]);
  return b;
}

std::string Duration(double ns) { return analysis::HumanDuration(ns); }

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The rows and columns of the steps of ranked processes, with empty cells.
Grid Frame(const std::vector<StepBreakdown>& steps) {
  std::set<int64_t> ranks, numbers;
  for (const auto& b : steps)
    if (b.rank >= 0) {
      ranks.insert(b.rank);
      numbers.insert(b.number);
    }
  Grid g;
  g.ranks.assign(ranks.begin(), ranks.end());
  std::vector<int64_t> all(numbers.begin(), numbers.end());
  g.all_steps = all.size();
  for (size_t i = 0; i < all.size(); ++i)  // every one, or an even sample with the last
    if (all.size() <= kMaxColumns ||
        i * kMaxColumns / all.size() != (i + 1) * kMaxColumns / all.size() || i + 1 == all.size())
      g.steps.push_back(all[i]);
  g.v.assign(g.ranks.size(), std::vector<double>(g.steps.size(), std::nan("")));
  return g;
}

// Where (row, column) a step of `rank` numbered `number` is drawn; false where it is not.
bool At(const Grid& g, int64_t rank, int64_t number, size_t* row, size_t* col) {
  auto r = std::lower_bound(g.ranks.begin(), g.ranks.end(), rank);
  auto c = std::lower_bound(g.steps.begin(), g.steps.end(), number);
  if (r == g.ranks.end() || *r != rank || c == g.steps.end() || *c != number) return false;
  *row = static_cast<size_t>(r - g.ranks.begin());
  *col = static_cast<size_t>(c - g.steps.begin());
  return true;
}

Grid StepTimes(const std::vector<StepBreakdown>& steps) {
  Grid g = Frame(steps);
  size_t r, c;
  for (const auto& b : steps)
    if (b.rank >= 0 && At(g, b.rank, b.number, &r, &c))
      g.v[r][c] = std::max(std::isnan(g.v[r][c]) ? 0 : g.v[r][c],  // two processes: the longer
                           static_cast<double>(b.Duration()));
  return g;
}

// Each rank's waits in collectives (from its entry until the last rank entered), added per
// step by where its entry falls; 0 in a step where it waited for none.
Grid Waits(const std::vector<StepBreakdown>& steps, const analysis::CommView& comm) {
  Grid g = Frame(steps);
  std::map<int64_t, std::vector<const StepBreakdown*>> of_rank;  // by start
  for (const auto& b : steps)
    if (b.rank >= 0) of_rank[b.rank].push_back(&b);
  size_t r, c;
  for (auto& [rank, v] : of_rank) {
    std::sort(v.begin(), v.end(), [](auto* x, auto* y) { return x->start < y->start; });
    for (const auto* b : v)
      if (At(g, rank, b->number, &r, &c)) g.v[r][c] = 0;
  }
  for (const auto& in : comm.instances)
    for (const auto& a : in.arrivals) {
      const analysis::CommRank& cr = comm.ranks[a.rank];
      auto it = of_rank.find(cr.rank);
      if (cr.device >= 0 || it == of_rank.end() || a.wait == 0) continue;
      auto s = std::upper_bound(it->second.begin(), it->second.end(), a.enter,
                                [](uint64_t t, const StepBreakdown* b) { return t < b->start; });
      if (s == it->second.begin() || a.enter >= (*--s)->end) continue;  // between steps
      if (At(g, cr.rank, (*s)->number, &r, &c)) g.v[r][c] += static_cast<double>(a.wait);
    }
  return g;
}

// The colour scale's key: a bar from the lowest value to the highest, with three labels.
std::string Key(double lo, double hi, double y, const std::string& what) {
  std::string s;
  constexpr int kSteps = 24;
  constexpr double kBar = 240;
  for (int i = 0; i < kSteps; ++i)
    s += "<rect x=\"" + svg::Num(kLeft + kBar * i / kSteps) + "\" y=\"" + svg::Num(y) +
         "\" width=\"" + svg::Num(kBar / kSteps + 0.5) + "\" height=\"12\" fill=\"" +
         Colour((i + 0.5) / kSteps) + "\"/>\n";
  s += Text(kLeft, y + 26, Duration(lo));
  s += Text(kLeft + kBar / 2, y + 26, Duration((lo + hi) / 2), "middle");
  s += Text(kLeft + kBar, y + 26, Duration(hi), "end");
  s += Text(kLeft + kBar + 12, y + 10, what + " (empty: no such step)");
  return s;
}

// The chart of one grid: `what` names the value ("step time").
std::string Draw(const Grid& g, const std::string& what, const std::string& title) {
  double lo = INFINITY, hi = 0;
  for (const auto& row : g.v)
    for (double x : row)
      if (!std::isnan(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  if (!std::isfinite(lo)) lo = 0;
  size_t rows = g.ranks.size(), cols = g.steps.size();
  double cw = (kWidth - kLeft - kRight) / static_cast<double>(std::max<size_t>(cols, 1));
  double rh = std::clamp(360.0 / static_cast<double>(rows), 4.0, 22.0);
  size_t label_every = static_cast<size_t>(std::ceil(14.0 / rh));  // labels do not overlap
  double h = rh * static_cast<double>(rows);
  std::string s = "<svg viewBox=\"0 0 " + svg::Num(kWidth) + " " + svg::Num(kTop + h + 80) +
                  "\" width=\"100%\" role=\"img\" aria-label=\"" + svg::Escape(title) + "\" " +
                  kFont + ">\n<title>" + svg::Escape(title) + "</title>\n";
  s += Text(kLeft + (kWidth - kLeft - kRight) / 2, 16, "step", "middle");
  s += Text(kWidth - kRight + 8, kTop - 6, "median, max");
  for (size_t r = 0; r < rows; ++r) {
    double y = kTop + rh * static_cast<double>(r);
    std::string rank = "rank " + std::to_string(g.ranks[r]);
    if (r % label_every == 0) s += Text(kLeft - 6, y + rh / 2 + 4, rank, "end");
    std::vector<double> known;
    for (size_t c = 0; c < cols; ++c) {
      double x = g.v[r][c];
      std::string tip = rank + ", step " + std::to_string(g.steps[c]) + ": ";
      if (std::isnan(x)) {
        s += Cell(kLeft + cw * c, y, cw, rh, "#ffffff", tip + "no such step");
        continue;
      }
      known.push_back(x);
      double t = hi > lo ? (x - lo) / (hi - lo) : 0;
      s += Cell(kLeft + cw * c, y, cw, rh, Colour(t), tip + what + " " + Duration(x));
    }
    if (r % label_every == 0 && !known.empty())
      s += Text(
          kWidth - kRight + 8, y + rh / 2 + 4,
          Duration(Median(known)) + ", " + Duration(*std::max_element(known.begin(), known.end())));
  }
  s += "<rect x=\"" + svg::Num(kLeft) + "\" y=\"" + svg::Num(kTop) + "\" width=\"" +
       svg::Num(cw * cols) + "\" height=\"" + svg::Num(h) +
       "\" fill=\"none\" stroke=\"#333\" stroke-width=\"0.5\"/>\n";
  for (size_t c : {size_t{0}, cols / 2, cols - 1})  // the first, middle and last step numbers
    s += Text(kLeft + cw * (static_cast<double>(c) + 0.5), kTop + h + 14,
              std::to_string(g.steps[c]), "middle");
  return s + Key(lo, hi, kTop + h + 30, what) + "</svg>\n";
}

// The rank with the highest value (`most`), else the lowest, in the most steps, as "rank 3 ...
// in 29 of the 30 steps shown" after `what`; "" where no step has two ranks.
std::string Extreme(const Grid& g, bool most, const std::string& what) {
  std::map<int64_t, size_t> times;
  size_t columns = 0;
  for (size_t c = 0; c < g.steps.size(); ++c) {
    size_t best = SIZE_MAX, known = 0;
    for (size_t r = 0; r < g.ranks.size(); ++r) {
      if (std::isnan(g.v[r][c])) continue;
      ++known;
      if (best == SIZE_MAX || (most ? g.v[r][c] > g.v[best][c] : g.v[r][c] < g.v[best][c]))
        best = r;
    }
    if (known < 2) continue;
    ++columns;
    times[g.ranks[best]]++;
  }
  auto top = std::max_element(times.begin(), times.end(),
                              [](auto& a, auto& b) { return a.second < b.second; });
  if (top == times.end()) return "";
  return " Rank " + std::to_string(top->first) + " " + what + " in " + std::to_string(top->second) +
         " of the " + std::to_string(columns) + " steps shown.";
}

}  // namespace

std::string RankHeatmapSection(const analysis::ReportData& d) {
  Grid times = StepTimes(d.steps.steps);
  if (times.ranks.size() < 2 || times.steps.empty()) return "";
  std::string sample = times.steps.size() < times.all_steps
                           ? " An even sample of " + std::to_string(times.steps.size()) + " of " +
                                 std::to_string(times.all_steps) + " steps."
                           : "";
  std::string s = "<section id=\"rank-heatmap\"><h2>Ranks by step</h2>\n";
  s += "<figure>" + Draw(times, "step time", "Step time per rank and step") + "<figcaption>" +
       svg::Escape(
           "One row per rank, one cell per step: the darker, the longer the step (each "
           "cell's exact time in its tooltip; each rank's median and longest step at "
           "the right)." +
           sample + Extreme(times, true, "has the longest step")) +
       "</figcaption></figure>\n";
  Grid waits = Waits(d.steps.steps, d.comm);
  bool any = false;
  for (const auto& row : waits.v)
    for (double x : row) any |= !std::isnan(x) && x > 0;
  if (any)
    s += "<figure>" +
         Draw(waits, "waiting in collectives", "Time waiting in collectives per rank and step") +
         "<figcaption>" +
         svg::Escape(
             "The time each rank waited in its collectives during the step for the "
             "others to arrive (from its entry until the last rank entered): the ranks "
             "that wait are not the slow one; the light row among dark ones is." +
             Extreme(waits, false, "waits the least")) +
         "</figcaption></figure>\n";
  return s + "</section>\n";
}

}  // namespace tt::exporter::report
