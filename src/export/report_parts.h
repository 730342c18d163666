// Pieces shared by the HTML report's sections (report_html.cc and one file per larger section).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/human.h"
#include "analysis/report/report_data.h"
#include "export/svg_chart.h"

namespace tt::exporter::report {

inline std::string Td(const std::string& s) {
  return "<td class=\"n\">" + svg::Escape(s) + "</td>";
}
inline std::string TdName(const std::string& s) {
  return "<td class=\"name\">" + svg::Escape(s) + "</td>";
}
inline std::string Header(const std::vector<std::string>& cols) {
  std::string s = "<thead><tr>";
  for (const auto& c : cols) s += "<th scope=\"col\">" + svg::Escape(c) + "</th>";
  return s + "</tr></thead>\n";
}
inline std::string Dur(uint64_t ns) { return analysis::HumanDuration(static_cast<double>(ns)); }
// Bytes per second as nccl-tests print it (GB/s, MB/s; kB/s below); "-" when unknown (< 0).
inline std::string Rate(double bps) {
  if (bps < 0) return "-";
  double scale = bps >= 1e9 ? 1e9 : bps >= 1e6 ? 1e6 : 1e3;
  char b[32];
  std::snprintf(b, sizeof b, "%.2f %s", bps / scale,
                scale == 1e9   ? "GB/s"
                : scale == 1e6 ? "MB/s"
                               : "kB/s");
  return b;
}
// A section's one plain line when it has nothing to show.
inline std::string None(const std::string& what) {
  return "<p class=\"none\">" + svg::Escape(what) + "</p>\n";
}

// The communication section (report_comm.cc): the collectives matched across ranks.
std::string CommSection(const analysis::ReportData& d);

// Its point-to-point part and the recordings' clocks (report_p2p.cc); "" when there is none.
std::string P2pPart(const analysis::P2pView& p);
std::string ClocksPart(const std::vector<model::RecordingClock>& clocks);

// The ranks x steps heat maps (report_heatmap.cc): step time, and time waiting in collectives,
// per rank and step; "" for a job of fewer than two ranks with steps.
std::string RankHeatmapSection(const analysis::ReportData& d);

// The roofline (report_roofline.cc): op types by arithmetic intensity and achieved FLOP/s under
// the recording host's peak; a one-line note where no op has its FLOPs and bytes known.
std::string RooflineSection(const analysis::ReportData& d);

// "What would help most" (report_suggest.cc): replay's what-ifs ranked by predicted gain.
std::string SuggestionsSection(const analysis::ReportData& d);

}  // namespace tt::exporter::report
