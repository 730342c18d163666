// The report's roofline (issue 36): each op type whose FLOPs and bytes are known as a point,
// its arithmetic intensity (FLOPs per byte read and written) against the FLOP/s it achieved,
// on log scales, under the recording host's FP32 peak (hardware.json, as the step view's mfu).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/human.h"
#include "export/report_parts.h"

namespace tt::exporter::report {

namespace {

using analysis::Row;
using analysis::WithCommas;
using svg::Escape;
using svg::Num;

constexpr double kW = 720, kLeft = 96, kRight = 20, kTop = 34, kH = 300;
constexpr size_t kLabelled = 8;  // the points named on the chart: the most FLOPs first

std::string Fixed(double v, int decimals) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

struct Point {
  std::string name;
  double intensity, rate, flops;
};

std::vector<Point> Points(const std::vector<Row>& rows) {
  std::vector<Point> out;
  for (const Row& r : rows) {
    const analysis::OpCosts& k = r.costs;
    double ns = static_cast<double>(r.accel_ns ? r.accel_ns : r.incl.total());
    if (!k.moved_bytes || !k.moved_flops || !k.flops_known || ns <= 0) continue;
    out.push_back({r.name, static_cast<double>(k.moved_flops) / k.moved_bytes,
                   static_cast<double>(k.float_ops) / ns * 1e9, static_cast<double>(k.float_ops)});
  }
  std::sort(out.begin(), out.end(), [](const Point& a, const Point& b) {
    return a.flops != b.flops ? a.flops > b.flops : a.name < b.name;
  });
  return out;
}

// FLOP/s as people write it (GFLOP/s, TFLOP/s); `decimals` < 0: 2 below 10, else 1.
std::string Flops(double v, int decimals = -1) {
  const char* unit[] = {"FLOP/s", "kFLOP/s", "MFLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s"};
  int i = 0;
  while (v >= 1000 && i < 5) v /= 1000, ++i;
  return Fixed(v, decimals >= 0 ? decimals : v < 10 ? 2 : 1) + " " + unit[i];
}

std::string Label(double x, double y, const std::string& s, const char* anchor,
                  const char* extra = "") {
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" text-anchor=\"" + anchor +
         "\" font-size=\"12\"" + extra + ">" + Escape(s) + "</text>\n";
}

// A log axis's decades covering [lo, hi].
std::pair<double, double> Decades(double lo, double hi) {
  double a = std::floor(std::log10(lo)), b = std::ceil(std::log10(hi));
  return {a, b > a ? b : a + 1};
}

std::string Chart(const std::vector<Point>& pts, double peak) {
  double xlo = pts[0].intensity, xhi = xlo, ylo = pts[0].rate, yhi = ylo;
  for (const Point& p : pts) {
    xlo = std::min(xlo, p.intensity), xhi = std::max(xhi, p.intensity);
    ylo = std::min(ylo, p.rate), yhi = std::max(yhi, std::max(p.rate, peak));
  }
  auto [x0, x1] = Decades(xlo, xhi);
  auto [y0, y1] = Decades(ylo, yhi);
  double pw = kW - kLeft - kRight;
  auto X = [&](double v) { return kLeft + (std::log10(v) - x0) / (x1 - x0) * pw; };
  auto Y = [&](double v) { return kTop + kH - (std::log10(v) - y0) / (y1 - y0) * kH; };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" + Num(kW) +
                  "\" height=\"" + Num(kTop + kH + 50) + "\" viewBox=\"0 0 " + Num(kW) + " " +
                  Num(kTop + kH + 50) +
                  "\"><title>Roofline: achieved FLOP/s against arithmetic "
                  "intensity per op type</title>\n";
  s += Label(kLeft, 18, "Roofline (log scales)", "start", " font-weight=\"bold\"");
  for (double d = x0; d <= x1; ++d) {
    double x = X(std::pow(10, d));
    s += "<line x1=\"" + Num(x) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(x) + "\" y2=\"" +
         Num(kTop + kH) + "\" stroke=\"#ddd\"/>\n";
    s += Label(x, kTop + kH + 16, Fixed(std::pow(10, d), d < 0 ? static_cast<int>(-d) : 0),
               "middle");
  }
  for (double d = y0; d <= y1; ++d) {
    double y = Y(std::pow(10, d));
    s += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(y) + "\" x2=\"" + Num(kW - kRight) +
         "\" y2=\"" + Num(y) + "\" stroke=\"#ddd\"/>\n";
    s += Label(kLeft - 6, y + 4, Flops(std::pow(10, d), 0), "end");
  }
  s += Label(kLeft + pw / 2, kTop + kH + 36,
             "arithmetic intensity (FLOPs per byte read and "
             "written)",
             "middle");
  if (peak > 0) {
    double y = Y(peak);
    s += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(y) + "\" x2=\"" + Num(kW - kRight) +
         "\" y2=\"" + Num(y) +
         "\" stroke=\"#b2182b\" stroke-width=\"2\" "
         "stroke-dasharray=\"6 3\"><title>FP32 peak</title></line>\n";
    s += Label(kW - kRight - 4, y - 6, "FP32 peak " + Flops(peak), "end",
               " fill=\"#b2182b\" font-weight=\"bold\"");
  }
  for (size_t i = 0; i < pts.size(); ++i) {
    const Point& p = pts[i];
    double x = X(p.intensity), y = Y(p.rate);
    s += "<circle class=\"roofline-op\" cx=\"" + Num(x) + "\" cy=\"" + Num(y) +
         "\" r=\"4\" fill=\"#2166ac\" fill-opacity=\"0.7\"><title>" +
         Escape(p.name + ": " + Fixed(p.intensity, 2) + " FLOP/B, " + Flops(p.rate)) +
         "</title></circle>\n";
    if (i < kLabelled)
      s += Label(x + 6, y - 6, std::to_string(i + 1), "start",
                 " font-weight=\"bold\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\"");
  }
  return s + "</svg>\n";
}

// The peak the step view measured mfu against, and its source (one of its notes).
double Peak(const analysis::ReportData& d, std::string* source) {
  double peak = 0;
  for (const Row& r : d.steps.rows)
    for (const auto& [k, v] : r.numbers)
      if (k == "peak_flops_per_second") peak = std::max(peak, v);
  for (const std::string& n : d.steps.notes)
    if (n.find("mfu against") != std::string::npos) *source = n;
  return peak;
}

}  // namespace

std::string RooflineSection(const analysis::ReportData& d) {
  std::string s = "<section id=\"roofline\"><h2>Roofline</h2>\n";
  std::vector<Point> pts = Points(d.ops.rows);
  if (pts.empty())
    return s + None("No roofline: no op with both its FLOPs and the bytes it moves known.") +
           "</section>\n";
  std::string source;
  double peak = Peak(d, &source);
  s += "<p>Each point is an op type whose FLOPs and bytes read and written are known: its "
       "arithmetic intensity against the FLOP/s it achieved (its FLOPs over its time). " +
       std::string(peak > 0 ? "The dashed line is the recording host's FP32 peak" +
                                  (source.empty() ? "" : " (" + Escape(source) + ")") + ". "
                            : "The recording holds no peak (hardware.json). ") +
       "No memory roof: the recording holds no memory bandwidth.</p>\n";
  s += "<figure>" + Chart(pts, peak) + "</figure>\n";
  s += "<div class=\"wide\"><table id=\"roofline-ops\">" +
       Header({"#", "op type", "float_ops", "arithmetic intensity (FLOP/B)", "FLOP/s"}) +
       "<tbody>\n";
  for (size_t i = 0; i < pts.size() && i < kLabelled; ++i)
    s += "<tr>" + Td(std::to_string(i + 1)) + TdName(pts[i].name) +
         Td(WithCommas(static_cast<uint64_t>(pts[i].flops))) + Td(Fixed(pts[i].intensity, 2)) +
         Td(Flops(pts[i].rate)) + "</tr>\n";
  return s + "</tbody></table></div></section>\n";
}

}  // namespace tt::exporter::report
