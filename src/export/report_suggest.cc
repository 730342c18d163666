// The report's "What would help most" section: replay's suggested changes (analysis/report/
// report_suggest.cc), each with the step time replay predicts, the gain and its uncertainty,
// and how to make it, the largest gain first.
#include <cstdio>

#include "core/human.h"
#include "export/report_parts.h"

namespace tt::exporter::report {

namespace {

std::string Dur(double ns) { return analysis::HumanDuration(ns); }

std::string Format(const char* f, double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

}  // namespace

std::string SuggestionsSection(const analysis::ReportData& d) {
  std::string s = "<section id=\"what-would-help\"><h2>What would help most</h2>\n";
  if (d.replay_predicted_ns <= 0)
    return s + None(d.suggestions_note.empty() ? "No replay." : d.suggestions_note) +
           "</section>\n";
  double base = d.replay_predicted_ns;
  s += "<p>Each step replayed from its dependency graph (<code>tensortrace replay</code>) takes " +
       Dur(base) + " against " + Dur(d.replay_measured_ns) +
       " measured. Each change below, one a user can make, is replayed the same way; its gain is "
       "against the replayed step, &plusmn; half the spread of the steps' gains. <code>tensortrace "
       "replay DIR --what-if SPEC</code> replays one, with what moves on the critical path.</p>\n";
  for (const std::string& n : d.replay_notes) s += "<p class=\"sub\">" + svg::Escape(n) + "</p>\n";
  if (d.suggestions.empty()) return s + None(d.suggestions_note) + "</section>\n";
  s += "<div class=\"wide\"><table id=\"suggestions\">" +
       Header({"change", "what if", "predicted step", "gain", "speedup", "how"}) + "<tbody>\n";
  for (const auto& g : d.suggestions) {
    double gain = g.gain_ns;
    s += "<tr>" + TdName(g.change) + TdName(g.spec) + Td(Dur(g.predicted_ns)) +
         Td((gain >= 0 ? "" : "-") + Dur(gain >= 0 ? gain : -gain) + " \u00b1 " +
            Dur(g.uncertainty_ns) + " (" + Format("%.1f%%", 100.0 * gain / base) + ")") +
         Td(g.predicted_ns > 0 ? Format("x%.2f", base / g.predicted_ns) : "-") + TdName(g.how) +
         "</tr>\n";
  }
  return s + "</tbody></table></div>\n</section>\n";
}

}  // namespace tt::exporter::report
