// What-if line:FILE:LINE=FACTOR and line:FILE:FIRST-LAST=FACTOR: the ops created at those lines
// of the program or run under them (the Python stack behind each op, as the code view gives it:
// where a graph op was created, else its thread's sampled or traced stack, code_index.h), at
// any depth, as REGEX=FACTOR changes them (whatif_match.h): what a user can name who knows
// the program's lines, not its ops ("the two summary lines of my loop").
#include <algorithm>
#include <charconv>
#include <map>
#include <regex>
#include <set>

#include "analysis/pass/code_index.h"
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"
#include "analysis/replay/whatif_match.h"
#include "core/error.h"

namespace tt::analysis::replay {

namespace {

// FILE as the code view prints it (a base name) or any tail of the path, or the path itself.
bool SameFile(const std::string& path, const std::string& file) {
  return path.size() >= file.size() &&
         path.compare(path.size() - file.size(), file.size(), file) == 0 &&
         (path.size() == file.size() || path[path.size() - file.size() - 1] == '/');
}

bool StackHas(const LabelTable& t, uint32_t stack, const WhatIf& w) {
  for (const LabelTable::Frame& f : t.stacks[stack])
    if (f.line >= w.first && f.line <= w.last && SameFile(t.files[f.file], w.pattern)) return true;
  return false;
}

// "12, 30-35, 40": sorted lines as runs.
std::string Runs(const std::set<int64_t>& lines) {
  std::string out;
  for (auto it = lines.begin(); it != lines.end();) {
    int64_t a = *it, b = a;
    while (++it != lines.end() && *it == b + 1) ++b;
    out += (out.empty() ? "" : ", ") + std::to_string(a) + (b > a ? "-" + std::to_string(b) : "");
  }
  return out;
}

// What the graphs hold near w's lines: the lines known in its file, else the program's files.
std::string Near(const LabelTable& t, const WhatIf& w) {
  if (t.stacks.empty())
    return "no Python stack behind any op (record with --python-sample-ms 5, or --python-tracer "
           "for PyTorch; TensorFlow's graph functions give their ops' creation sites)";
  std::set<int64_t> lines;
  std::set<std::string> files;
  for (const auto& stack : t.stacks)
    for (const LabelTable::Frame& f : stack) {
      const std::string& path = t.files[f.file];
      if (SameFile(path, w.pattern))
        lines.insert(f.line);
      else if (!IsLibraryFile(path))
        files.insert(path.substr(path.rfind('/') + 1));
    }
  if (!lines.empty())
    return "no op created at or run under " + w.pattern + ":" + std::to_string(w.first) +
           (w.last > w.first ? "-" + std::to_string(w.last) : "") +
           "; the lines known in that file: " + Runs(lines);
  std::string list;
  for (const auto& f : files) list += (list.empty() ? "" : ", ") + f;
  return "no Python stack in a file " + w.pattern +
         "; the program's files known: " + (list.empty() ? "none" : list);
}

size_t ApplyLine(const WhatIf& w, Graph* g) {
  const LabelTable& t = *g->names;
  std::vector<signed char> has(t.stacks.size(), -1);  // by stack, decided when first met
  auto pred = [&](uint32_t, uint32_t, uint32_t stack) {
    if (stack == kNoIndex) return false;
    if (has[stack] < 0) has[stack] = StackHas(t, stack, w);
    return has[stack] == 1;
  };
  size_t n = ScaleMatched(MatchBy(*g, pred), w.factor, g, Backward::kWithForward);
  if (n == 0 && !w.near) w.near = std::make_shared<std::string>(Near(t, w));
  return n;
}

bool Number(std::string_view text, int64_t* v) {
  return !text.empty() && std::from_chars(text.data(), text.data() + text.size(), *v).ptr ==
                              text.data() + text.size();
}

bool ParseLine(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w) {
  if (spec.rfind("line:", 0) != 0) return false;
  size_t eq = spec.rfind('=');
  std::string body = spec.substr(5, eq - 5);
  size_t colon = body.rfind(':');
  std::string_view range =
      colon == std::string::npos ? std::string_view() : std::string_view(body).substr(colon + 1);
  size_t dash = range.find('-');
  bool ok = colon != std::string::npos && colon > 0 && Number(range.substr(0, dash), &w->first);
  w->last = w->first;
  if (ok && dash != std::string_view::npos) ok = Number(range.substr(dash + 1), &w->last);
  if (!ok || w->first < 1 || w->last < w->first)
    throw Error("--what-if '" + spec +
                "': expected line:FILE:LINE=FACTOR or line:FILE:FIRST-LAST=FACTOR (FILE as the "
                "code view prints it, e.g. line:train.py:42-43=0; lines from 1, FIRST <= LAST)");
  w->pattern = body.substr(0, colon);
  w->factor = numbers.factor(spec, spec.substr(eq + 1));
  return true;
}

std::string NoLine(const WhatIf& w) {
  if (w.near) return *w.near;
  return "no op created at or run under " + w.pattern + ":" + std::to_string(w.first) +
         (w.last > w.first ? "-" + std::to_string(w.last) : "");
}

// Work the model's own computation is made of (a layer's products, the backward pass): a line
// that holds it is the model, not side work a user could drop from the step.
bool ModelWork(const std::string& label, const std::string& type) {
  static const std::regex re(
      "matmul|gemm|conv|einsum|addmm|(^|[^a-z])mm($|[^a-z])|linear|backward|gradient|"
      "optimizer|autograd|DistributedDataParallel",
      std::regex::ECMAScript | std::regex::icase);
  return std::regex_search(label, re) || std::regex_search(type, re);
}

// The innermost frame of a stack in the program's own files; nullptr: none.
const LabelTable::Frame* OwnFrame(const LabelTable& t, uint32_t stack) {
  const auto& frames = t.stacks[stack];
  for (size_t i = frames.size(); i-- > 0;)
    if (!IsLibraryFile(t.files[frames[i].file])) return &frames[i];
  return nullptr;
}

struct LineWork {
  double ns = 0;
  bool model = false;
};

// Per (file, line) of the program's own files, the work of the ranks' nodes whose innermost own
// frame it is, over all steps.
std::map<std::pair<uint32_t, int64_t>, LineWork> WorkByLine(const std::vector<StepGraph>& steps) {
  std::map<std::pair<uint32_t, int64_t>, LineWork> by;
  for (const StepGraph& sg : steps) {
    const Graph& g = sg.graph;
    const LabelTable& t = *g.names;
    for (const Node& n : g.nodes) {
      if (n.stack == kNoIndex || g.resources[n.resource].rank < 0) continue;
      const LabelTable::Frame* f = OwnFrame(t, n.stack);
      if (!f) continue;
      LineWork& w = by[{f->file, f->line}];
      w.ns += static_cast<double>(n.duration);
      w.model |= ModelWork(g.Label(n.label), g.Type(n.label));
    }
  }
  return by;
}

// The hottest lines of the program's own files that hold side work (no layer, no backward
// pass): summaries, .item(), metrics, a copy to the host; each removed (line:FILE:LINE=0).
std::vector<WhatIf> SuggestLines(const SuggestInput& in) {
  if (in.steps.empty() || in.steps[0].graph.names->stacks.empty()) return {};
  const LabelTable& t = *in.steps[0].graph.names;
  std::vector<std::pair<double, std::pair<uint32_t, int64_t>>> hot;
  for (const auto& [at, w] : WorkByLine(in.steps))
    if (!w.model) hot.push_back({w.ns, at});
  std::sort(hot.begin(), hot.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<WhatIf> out;
  for (size_t i = 0; i < hot.size() && out.size() < in.top; ++i) {
    std::string file = t.files[hot[i].second.first];
    file = file.substr(file.rfind('/') + 1);
    std::string at = file + ":" + std::to_string(hot[i].second.second);
    WhatIf w = MakeWhatIf("line", "line:" + at + "=0", file, 0);
    w.first = w.last = hot[i].second.second;
    out.push_back(w);
  }
  return out;
}

// How to drop a line's work from the step: its input pipeline work (most of its time on the
// pipeline's threads: a tf.data map's py_function, a Dataset's __getitem__) made cheaper,
// parallel or cached; other side work run less often or off the step's thread.
std::string HowLine(const WhatIf& w, const SuggestInput& in) {
  std::set<std::string> labels;
  double input = 0, all = 0;
  for (const StepGraph& sg : in.steps) {  // all steps: one step's may hold none of the line's work
    const Graph& g = sg.graph;
    for (const Node& n : g.nodes) {
      if (n.stack == kNoIndex || !StackHas(*g.names, n.stack, w)) continue;
      if (labels.size() < 3) labels.insert(g.Label(n.label));
      all += static_cast<double>(n.duration);
      if (n.kind == NodeKind::kInput) input += static_cast<double>(n.duration);
    }
  }
  std::string ops;
  for (const auto& l : labels) ops += (ops.empty() ? "" : ", ") + l;
  std::string what = "the work of " + w.pattern + ":" + std::to_string(w.first) +
                     (ops.empty() ? "" : " (" + ops + ")");
  if (all > 0 && input >= all / 2)
    return what +
           " is the input pipeline's, and the steps wait for it: make it cheaper (TensorFlow "
           "ops for a py_function's Python), run it in parallel (map's num_parallel_calls, a "
           "DataLoader's num_workers) or cache its output once";
  return what +
         " runs in every step: run it every N steps, after the loop, or off the step's thread "
         "(a summary writer, a .item() or print that waits for the device, a metric)";
}

}  // namespace

const WhatIfKind& LineWhatIf() {
  static const WhatIfKind k{
      .name = "line",
      .syntax = "line:FILE:FIRST[-LAST]=FACTOR",
      .help =
          "the ops created at or run under those lines of the\nprogram (the Python stack "
          "behind each op, as stats\n--view code gives it; FILE as it prints it), at any\n"
          "depth, as REGEX=FACTOR changes them",
      .parse = ParseLine,
      .apply = ApplyLine,
      .nothing = NoLine,
      .suggest = SuggestLines,
      .change = "line",
      .how = HowLine,
  };
  return k;
}

}  // namespace tt::analysis::replay
