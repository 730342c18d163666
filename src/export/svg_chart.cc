#include "export/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tt::exporter::svg {

namespace {

constexpr double kWidth = 1000, kLeft = 80, kRight = 20;
constexpr char kFont[] = "font-family=\"sans-serif\" font-size=\"12\"";

std::string Text(double x, double y, const std::string& s, const char* anchor = "start",
                 const char* extra = "") {
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" text-anchor=\"" + anchor + "\" " + extra +
         ">" + Escape(s) + "</text>\n";
}

std::string Line(double x1, double y1, double x2, double y2, const char* style) {
  return "<line x1=\"" + Num(x1) + "\" y1=\"" + Num(y1) + "\" x2=\"" + Num(x2) + "\" y2=\"" +
         Num(y2) + "\" " + style + "/>\n";
}

std::string Rect(double x, double y, double w, double h, const std::string& fill,
                 const std::string& tip) {
  std::string s = "<rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" +
                  Num(std::max(w, 0.0)) + "\" height=\"" + Num(std::max(h, 0.0)) + "\" fill=\"" +
                  fill + "\"";
  if (tip.empty()) return s + "/>\n";
  return s + "><title>" + Escape(tip) + "</title></rect>\n";
}

std::string TickLabel(double v) {
  char b[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(b, sizeof b, "%.0f", v);
  else
    std::snprintf(b, sizeof b, "%g", v);
  return b;
}

std::string Open(double height, const std::string& title) {
  // Inline in HTML5, an <svg> needs no namespace attribute (and the page names no URL).
  return "<svg viewBox=\"0 0 " + Num(kWidth) + " " + Num(height) +
         "\" width=\"100%\" role=\"img\" aria-label=\"" + Escape(title) + "\" " + kFont +
         ">\n<title>" + Escape(title) + "</title>\n";
}

// A y axis from 0 to ticks.back(), with grid lines and the unit in the title.
std::string YAxis(const std::vector<double>& ticks, double top, double h,
                  const std::string& title) {
  std::string s;
  double max = ticks.back() > 0 ? ticks.back() : 1;
  for (double t : ticks) {
    double y = top + h - t / max * h;
    s += Line(kLeft, y, kWidth - kRight, y, "stroke=\"#ddd\" stroke-width=\"1\"");
    s += Text(kLeft - 6, y + 4, TickLabel(t), "end");
  }
  s += Line(kLeft, top, kLeft, top + h, "stroke=\"#333\" stroke-width=\"1\"");
  s += "<text transform=\"translate(14," + Num(top + h / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + Escape(title) + "</text>\n";
  return s;
}

}  // namespace

std::string Escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        // Control characters are not allowed in XML text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
          o += ' ';
        else
          o += c;
    }
  }
  return o;
}

std::string Num(double v) {
  if (!std::isfinite(v)) v = 0;
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  std::string s = b;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::vector<double> Ticks(double lo, double hi, int want) {
  if (!(hi > lo)) hi = lo + 1;
  double raw = (hi - lo) / std::max(want, 1);
  double p = std::pow(10, std::floor(std::log10(raw)));
  double step = p;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) {
      step = m * p;
      break;
    }
  std::vector<double> t;
  for (double v = std::floor(lo / step) * step; t.size() < 100; v += step) {
    t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
    if (v >= hi - step * 1e-9) break;
  }
  return t;
}

Unit TimeUnit(double max_ns) {
  if (max_ns >= 1e9) return {1e9, "s"};
  if (max_ns >= 1e6) return {1e6, "ms"};
  if (max_ns >= 1e3) return {1e3, "us"};
  return {1, "ns"};
}

Unit ByteUnit(double max_bytes) {
  if (max_bytes >= 1024.0 * 1024 * 1024) return {1024.0 * 1024 * 1024, "GiB"};
  if (max_bytes >= 1024.0 * 1024) return {1024.0 * 1024, "MiB"};
  if (max_bytes >= 1024.0) return {1024.0, "KiB"};
  return {1, "bytes"};
}

std::string Legend(const std::vector<LegendItem>& items, double x, double y, double width,
                   bool lines, double* height) {
  std::string s;
  double cx = x, cy = y;
  for (const auto& it : items) {
    double w = 30 + 7 * static_cast<double>(it.label.size()) + 16;
    if (cx + w > x + width && cx > x) {
      cx = x;
      cy += 20;
    }
    if (lines) {
      s += "<line x1=\"" + Num(cx) + "\" y1=\"" + Num(cy + 6) + "\" x2=\"" + Num(cx + 24) +
           "\" y2=\"" + Num(cy + 6) + "\" stroke=\"" + it.colour + "\" stroke-width=\"2.5\"" +
           (it.dash.empty() ? "" : " stroke-dasharray=\"" + it.dash + "\"") + "/>\n";
    } else {
      s += "<rect x=\"" + Num(cx) + "\" y=\"" + Num(cy) + "\" width=\"12\" height=\"12\" fill=\"" +
           it.colour + "\" stroke=\"#333\" stroke-width=\"0.5\"/>\n";
    }
    s += Text(cx + (lines ? 30 : 18), cy + 10, it.label);
    cx += w;
  }
  *height = cy - y + 20;
  return s;
}

std::string StackedBars(const std::vector<std::string>& bar_labels,
                        const std::vector<BarSeries>& stack, const BarSeries* side,
                        const std::vector<double>& marks, const std::string& mark_label,
                        const std::string& x_title, const std::string& title) {
  size_t n = bar_labels.size();
  double max = 0;
  for (size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (const auto& s : stack) sum += i < s.values.size() ? s.values[i] : 0;
    max = std::max(max, sum);
    if (side && i < side->values.size()) max = std::max(max, side->values[i]);
    if (i < marks.size()) max = std::max(max, marks[i]);
  }
  Unit u = TimeUnit(max);
  std::vector<double> ticks = Ticks(0, max / u.div, 5);
  double top = 30, h = 260, plot_w = kWidth - kLeft - kRight;
  std::string body = Text(kLeft, 18, title, "start", "font-weight=\"bold\"");
  body += YAxis(ticks, top, h, "time per step (" + u.name + ")");
  double scale = h / (ticks.back() > 0 ? ticks.back() * u.div : 1);
  double slot = plot_w / static_cast<double>(std::max<size_t>(n, 1));
  double bw = slot * (side ? 0.55 : 0.7), sw = slot * 0.22;
  size_t every = std::max<size_t>(1, (n + 19) / 20);  // at most about 20 labels
  for (size_t i = 0; i < n; ++i) {
    double x = kLeft + slot * static_cast<double>(i) + slot * 0.1, y = top + h;
    for (const auto& s : stack) {
      double v = i < s.values.size() ? s.values[i] : 0;
      if (v <= 0) continue;
      double hh = v * scale;
      y -= hh;
      char tip[64];
      std::snprintf(tip, sizeof tip, ": %.3f %s", v / u.div, u.name.c_str());
      body += Rect(x, y, bw, hh, s.colour, bar_labels[i] + " " + s.label + tip);
    }
    if (side && i < side->values.size() && side->values[i] > 0) {
      double hh = side->values[i] * scale;
      char tip[64];
      std::snprintf(tip, sizeof tip, ": %.3f %s", side->values[i] / u.div, u.name.c_str());
      body += Rect(x + bw + slot * 0.03, top + h - hh, sw, hh, side->colour,
                   bar_labels[i] + " " + side->label + tip);
    }
    if (i < marks.size() && marks[i] > 0) {
      double my = top + h - marks[i] * scale;
      body += Line(x - slot * 0.05, my, x + bw + (side ? sw + slot * 0.03 : 0) + slot * 0.05, my,
                   "stroke=\"#000\" stroke-width=\"2\"");
    }
    if (i % every == 0) body += Text(x + bw / 2, top + h + 16, bar_labels[i], "middle");
  }
  body += Line(kLeft, top + h, kWidth - kRight, top + h, "stroke=\"#333\" stroke-width=\"1\"");
  body += Text(kLeft + plot_w / 2, top + h + 34, x_title, "middle");
  std::vector<LegendItem> items;
  for (const auto& s : stack) items.push_back({s.label, s.colour, ""});
  if (side) items.push_back({side->label + " (narrow bar)", side->colour, ""});
  double lh = 0;
  std::string legend = Legend(items, kLeft, top + h + 48, plot_w, false, &lh);
  if (!marks.empty()) {
    double y = top + h + 48 + lh;
    legend += Line(kLeft, y + 6, kLeft + 24, y + 6, "stroke=\"#000\" stroke-width=\"2\"");
    legend += Text(kLeft + 30, y + 10, mark_label);
    lh += 20;
  }
  return Open(top + h + 48 + lh + 6, title) + body + legend + "</svg>\n";
}

std::string LineChart(const std::vector<LineSeries>& series, double x_max_ns,
                      const std::string& title) {
  double ymax = 0;
  for (const auto& s : series) ymax = std::max(ymax, s.peak_y);
  Unit bu = ByteUnit(ymax), tu = TimeUnit(x_max_ns);
  std::vector<double> yt = Ticks(0, ymax / bu.div, 5), xt = Ticks(0, x_max_ns / tu.div, 8);
  double top = 30, h = 260, plot_w = kWidth - kLeft - kRight;
  double ytop = yt.back() * bu.div, xtop = xt.back() * tu.div;
  if (ytop <= 0) ytop = 1;
  if (xtop <= 0) xtop = 1;
  auto X = [&](double ns) { return kLeft + ns / xtop * plot_w; };
  auto Y = [&](double b) { return top + h - b / ytop * h; };
  std::string body = Text(kLeft, 18, title, "start", "font-weight=\"bold\"");
  body += YAxis(yt, top, h, "in use (" + bu.name + ")");
  for (double t : xt) {
    double x = X(t * tu.div);
    body += Line(x, top + h, x, top + h + 5, "stroke=\"#333\" stroke-width=\"1\"");
    body += Text(x, top + h + 18, TickLabel(t), "middle");
  }
  body += Line(kLeft, top + h, kWidth - kRight, top + h, "stroke=\"#333\" stroke-width=\"1\"");
  body += Text(kLeft + plot_w / 2, top + h + 36, "time since the trace's start (" + tu.name + ")",
               "middle");
  std::vector<LegendItem> items;
  for (const auto& s : series) {
    if (s.points.empty()) continue;
    std::string d = "M" + Num(X(s.points[0].first)) + " " + Num(Y(0));
    for (const auto& [x, y] : s.points) d += "H" + Num(X(x)) + "V" + Num(Y(y));
    body += "<path d=\"" + d + "\" fill=\"none\" stroke=\"" + s.colour + "\" stroke-width=\"2\"" +
            (s.dash.empty() ? "" : " stroke-dasharray=\"" + s.dash + "\"") + "><title>" +
            Escape(s.label) + "</title></path>\n";
    double px = X(s.peak_x), py = Y(s.peak_y);
    body += "<circle cx=\"" + Num(px) + "\" cy=\"" + Num(py) +
            "\" r=\"5\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/>\n";
    bool right_half = px > kLeft + plot_w * 0.6;
    // A white halo keeps the label readable where it crosses a line.
    body += Text(right_half ? px - 8 : px + 8, std::max(py - 8, top + 10), s.peak_label,
                 right_half ? "end" : "start",
                 "font-weight=\"bold\" stroke=\"#fff\" stroke-width=\"4\" paint-order=\"stroke\"");
    items.push_back({s.label, s.colour, s.dash});
  }
  double lh = 0;
  std::string legend = Legend(items, kLeft, top + h + 50, plot_w, true, &lh);
  return Open(top + h + 50 + lh + 6, title) + body + legend + "</svg>\n";
}

std::string TimelineChart(const std::vector<TimelineLane>& lanes, double span_ns,
                          const std::vector<LegendItem>& legend, const std::string& title,
                          const std::string& x_title) {
  constexpr double kLabel = 190, kRow = 16, kTop = 66;
  double plot_w = kWidth - kLabel - kRight;
  Unit tu = TimeUnit(span_ns);
  std::vector<double> xt = Ticks(0, span_ns / tu.div, 8);
  double xtop = xt.back() * tu.div > 0 ? xt.back() * tu.div : 1;
  auto X = [&](double ns) { return kLabel + ns / xtop * plot_w; };
  std::string body = Text(kLabel, 18, title, "start", "font-weight=\"bold\"");
  body += Text(kLabel + plot_w / 2, 34, x_title + " (" + tu.name + ")", "middle");
  double y = kTop;
  std::string grid;
  for (const auto& lane : lanes) {
    double lh = kRow * std::max(lane.depth, 1) + 6;
    body += Line(kLabel, y + lh, kWidth - kRight, y + lh, "stroke=\"#ccc\" stroke-width=\"1\"");
    std::string label = lane.label.size() > 26 ? lane.label.substr(0, 25) + "…" : lane.label;
    body += Text(kLabel - 6, y + 14, label, "end");
    for (const auto& r : lane.rects) {
      double x0 = X(r.start), x1 = std::max(X(r.end), x0 + 0.5);
      double ry = y + 3 + kRow * r.depth;
      body += Rect(x0, ry, x1 - x0, kRow - 2, r.colour, r.tooltip);
      // A white edge between neighbours of one colour, where a slice is wide enough to keep it.
      if (x1 - x0 >= 4)
        body += Line(x0, ry, x0, ry + kRow - 2, "stroke=\"#fff\" stroke-width=\"1\"");
      double chars = (x1 - x0 - 4) / 7;  // about 6 px per character at 10 px, and the ellipsis
      if (chars >= 4) {
        std::string t =
            r.name.size() > chars ? r.name.substr(0, static_cast<size_t>(chars) - 1) + "…" : r.name;
        body += Text(x0 + 2, ry + 11, t, "start", "font-size=\"10\" fill=\"#000\"");
      }
    }
    y += lh;
  }
  for (double t : xt) {
    double x = X(t * tu.div);
    grid += Line(x, kTop - 6, x, y, "stroke=\"#eee\" stroke-width=\"1\"");
    grid += Text(x, kTop - 9, TickLabel(t), "middle");
  }
  double lh = 0;
  std::string leg = Legend(legend, kLabel, y + 14, plot_w, false, &lh);
  return Open(y + 14 + lh + 6, title) + grid + body + leg + "</svg>\n";
}

}  // namespace tt::exporter::svg
