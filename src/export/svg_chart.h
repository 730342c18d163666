// Inline SVG charts drawn by hand for the HTML report: axes with ticks and units, legends with
// labels (meaning never rests on colour alone), text that prints.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tt::exporter::svg {

// Text made safe for HTML and SVG (element content and attribute values).
std::string Escape(const std::string& s);
// A number for an SVG attribute: at most 2 decimals, no trailing zeros.
std::string Num(double v);

// Round tick positions covering [lo, hi]: about `want` of them at 1, 2 or 5 times a power of ten.
std::vector<double> Ticks(double lo, double hi, int want);

// A unit that keeps values readable: the divisor and its name (ns -> us/ms/s; bytes -> KiB..).
struct Unit {
  double div = 1;
  std::string name;
};
Unit TimeUnit(double max_ns);
Unit ByteUnit(double max_bytes);

struct LegendItem {
  std::string label, colour, dash;  // dash: an SVG stroke-dasharray for lines ("" for boxes)
};
// A legend row of boxes (or line swatches) with labels, `width` wide, starting at y.
std::string Legend(const std::vector<LegendItem>& items, double x, double y, double width,
                   bool lines, double* height);

// Stacked bars, one per label; each series gives one segment per bar (values in ns). `marks`
// (optional, one per bar) draws a tick at a value, e.g. the step's duration; `side` (optional)
// draws a narrow second bar beside each stack.
struct BarSeries {
  std::string label, colour;
  std::vector<double> values;
};
std::string StackedBars(const std::vector<std::string>& bar_labels,
                        const std::vector<BarSeries>& stack, const BarSeries* side,
                        const std::vector<double>& marks, const std::string& mark_label,
                        const std::string& x_title, const std::string& title);

// Step lines of y (bytes) against x (ns since `origin`), one per series, with each series'
// highest point marked and labelled.
struct LineSeries {
  std::string label, colour, dash;
  std::vector<std::pair<double, double>> points;  // (ns since origin, bytes), in x order
  double peak_x = 0, peak_y = 0;
  std::string peak_label;
};
std::string LineChart(const std::vector<LineSeries>& series, double x_max_ns,
                      const std::string& title);

// A timeline: one row per track, rectangles [start, end) in ns since the window's start.
struct TimelineRect {
  double start = 0, end = 0;
  int depth = 0;
  std::string name, colour, tooltip;
};
struct TimelineLane {
  std::string label;
  int depth = 1;
  std::vector<TimelineRect> rects;
};
std::string TimelineChart(const std::vector<TimelineLane>& lanes, double span_ns,
                          const std::vector<LegendItem>& legend, const std::string& title,
                          const std::string& x_title);

}  // namespace tt::exporter::svg
