// The code view (tfprof's code view): op time by the Python line behind each op, as a tree of
// the program's frames (file:line:function), outermost first. Each op's own time (as the op
// view counts it) goes to the stack op_sites.h gives it: where a graph op was created, else
// the stack its launching thread was sampled on. Waits for input, the input pipeline's own work
// on a sampled thread (a DataLoader worker's fetch) and compilations outside ops go to their
// thread's stack as leaves "(input wait)", "(input work)" and "(compile)". By default a run of
// library frames (the interpreter's, installed packages') is folded into one node "[package]";
// --all-frames keeps every frame.
#include <algorithm>

#include "analysis/pass/op_sites.h"
#include "analysis/views/op_rows.h"

namespace tt::analysis {

namespace {

using Node = CodeNode;

void Insert(std::vector<Row>* level, const std::vector<Node>& path, size_t i, const Summary& s) {
  if (i >= path.size()) return;
  auto it = std::find_if(level->begin(), level->end(),
                         [&](const Row& r) { return r.name == path[i].name; });
  if (it == level->end()) {
    Row r;
    r.name = path[i].name;
    r.incl.KeepSamples(false);
    if (!path[i].file.empty()) {
      r.text = {{"file", path[i].file}, {"function", path[i].function}};
      r.numbers = {{"line", static_cast<double>(path[i].line)}};
    }
    level->push_back(std::move(r));
    it = level->end() - 1;
  }
  it->incl.Merge(s);
  if (i + 1 == path.size()) it->self_ns += s.total();
  Insert(&it->children, path, i + 1, s);
}

void SetInclusiveShares(std::vector<Row>* rows, uint64_t total) {
  for (auto& x : *rows) {
    x.share = total ? static_cast<double>(x.incl.total()) / total : 0;
    SetInclusiveShares(&x.children, total);
  }
}

// The compilations of a process's tracks, less those another track's covers whole (XLA
// compiling a module's fusions on its pool's threads while the thread that asked waits in its
// own compile range): their time by stack, each counted once.
std::map<std::pair<size_t, uint32_t>, Summary> CompilesByStack(const Aggregates& a) {
  struct At {
    size_t process, track;
    TrackAgg::CodeCompile c;
  };
  std::vector<At> all;
  for (const auto& t : a.host)
    for (const auto& c : t.code_compile) all.push_back({a.m->tracks[t.track].process, t.track, c});
  std::sort(all.begin(), all.end(), [](const At& x, const At& y) {
    return std::tie(x.process, x.c.start) < std::tie(y.process, y.c.start) ||
           (x.process == y.process && x.c.start == y.c.start && x.c.end > y.c.end);
  });
  std::map<std::pair<size_t, uint32_t>, Summary> out;
  std::vector<const At*> open;  // earlier ones of this process that may cover later ones
  for (const At& x : all) {
    std::erase_if(open,
                  [&](const At* o) { return o->process != x.process || o->c.end < x.c.start; });
    bool covered = std::any_of(open.begin(), open.end(), [&](const At* o) {
      return o->track != x.track && o->c.end >= x.c.end;
    });
    open.push_back(&x);
    if (covered) continue;
    Summary& s = out[{x.process, x.c.stack}];
    if (s.count() == 0) s.KeepSamples(false);
    s.Add(x.c.end - x.c.start);
  }
  return out;
}

void Finish(Aggregates& a, Result* r) {
  std::vector<Row> tree;
  uint64_t total = 0, unattributed = 0;
  for (const auto& [at, s] : CompilesByStack(a)) {
    total += s.total();
    std::vector<Node> path = SampledPath(a.code.processes[at.first], at.second, a.sel.all_frames);
    path.push_back({"(compile)", "", "", 0});
    Insert(&tree, path, 0, s);
  }
  for (auto& t : a.host) {
    size_t p = a.m->tracks[t.track].process;
    for (const auto& [stack, s] : t.code) {
      total += s.total();
      if (stack == kNoStack) unattributed += s.total();
      Insert(&tree, SampledPath(a.code.processes[p], stack, a.sel.all_frames), 0, s);
    }
    for (const auto& [key, s] : t.code_exact) {
      total += s.total();
      Insert(&tree, ExactPath(a.code.processes[p], key, a.sel.all_frames), 0, s);
    }
    for (const auto& [at, s] : t.code_phase) {
      total += s.total();
      std::vector<Node> path = SampledPath(a.code.processes[p], at.first, a.sel.all_frames);
      path.push_back({at.second, "", "", 0});
      Insert(&tree, path, 0, s);
    }
  }
  bool tree_empty = tree.empty();
  SetInclusiveShares(&tree, total);
  r->rows = std::move(tree);
  r->total_ns = total;
  if (tree_empty)
    r->notes.push_back(
        "no Python stacks in this trace: record a Python program with tensortrace record "
        "--python-sample-ms 5 to sample the stacks, or --python-tracer for PyTorch's exact ones; "
        "TensorFlow's graph functions give their ops' creation sites)");
  else if (unattributed)
    r->notes.push_back("op time with no Python stack (no sampled thread then): " +
                       std::to_string(unattributed / 1000) + " us");
}

}  // namespace

extern const ViewDef kCodeView = {
    .name = "code",
    .help =
        "op time by the Python line behind each op (where a graph op was created, else its\n"
        "thread's sampled stack), a tree of file:line:function, outermost first; library\n"
        "frames folded into [package] (--all-frames unfolds them); micros and share are\n"
        "inclusive, self_micros the ops whose innermost shown frame is the row",
    .fields = {{"file", ColumnKind::kText},
               {"function", ColumnKind::kText},
               {"line", ColumnKind::kCount}},
    .columns = {"name", "occurrence", "micros", "self_micros", "share"},
    .needs = {.code = true},
    .finish = Finish};

}  // namespace tt::analysis
