#include "analysis/pass/code_index.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

#include "format/keys.h"
#include "model/args.h"
#include "model/scan.h"

namespace tt::analysis {

namespace {

// "file:line:function" (the sampler's frame text); a text without that shape is all file.
CodeFrame ParseFrame(std::string_view text) {
  CodeFrame f;
  size_t fn = text.rfind(':');
  size_t ln =
      fn == std::string_view::npos || fn == 0 ? std::string_view::npos : text.rfind(':', fn - 1);
  int64_t line = 0;
  if (ln != std::string_view::npos &&
      std::from_chars(text.data() + ln + 1, text.data() + fn, line).ec == std::errc()) {
    f.file = std::string(text.substr(0, ln));
    f.line = line;
    f.function = std::string(text.substr(fn + 1));
  } else {
    f.file = std::string(text);
  }
  f.library = IsLibraryFile(f.file);
  return f;
}

// A thread whose innermost frame is in these files waits (a queue, a lock, a selector): an op
// on another thread at that time was not launched by it.
bool IsWaiting(const CodeFrame& f) {
  static const char* const kWaitFiles[] = {"threading.py",  "queue.py",      "selectors.py",
                                           "socket.py",     "connection.py", "synchronize.py",
                                           "popen_fork.py", "subprocess.py"};
  std::string_view file = f.file;
  std::string_view base = file.substr(file.rfind('/') + 1);
  for (const char* w : kWaitFiles)
    if (base == w) return true;
  return false;
}

class Reader {
 public:
  Reader(const model::Process& p, ProcessCode* pc) : p_(p), pc_(pc) {
    std::tie(frame_, sample_, site_, frame_id_, frame_text_, frames_, tid_, op_name_, since_, at_) =
        std::tuple_cat(model::KeyIds(
            p, {keys::kPythonFrame, keys::kPythonSample, keys::kPythonSite, keys::kFrameId,
                keys::kFrame, keys::kFrames, keys::kTid, keys::kOpName, keys::kSince, keys::kAt}));
    std::tie(cpu_, cpu_ns_, gil_, gil_ns_) = std::tuple_cat(
        model::KeyIds(p, {keys::kPythonCpu, keys::kCpuNs, keys::kPythonGil, keys::kGilNs}));
  }
  void OnBegin(const model::Slice&) {}
  void OnSlice(const model::Slice&) {}
  void OnPoint(const model::Point& e) {
    if (e.category != layout::Category::kPython || !e.name) return;
    if (e.name == frame_) {
      auto n = model::ArgInt(e.args, frame_id_);
      if (n) number_[*n] = Frame(p_.Name(model::ArgStr(e.args, frame_text_)));
    } else if (e.name == sample_) {
      auto tid = model::ArgInt(e.args, tid_);
      // The look's own time (the event is written after it), else the event's.
      int64_t at = model::ArgInt(e.args, at_).value_or(0);
      uint64_t ts = at > 0 && static_cast<uint64_t>(at) <= e.ts ? static_cast<uint64_t>(at) : e.ts;
      uint64_t since = static_cast<uint64_t>(model::ArgInt(e.args, since_).value_or(0));
      if (tid)
        pc_->samples[static_cast<uint64_t>(*tid)].push_back(
            {ts, since < ts ? since : 0, Stack(e.args)});
    } else if (e.name == cpu_) {
      Total(e, cpu_ns_, &pc_->cpu);
    } else if (e.name == gil_) {
      Total(e, gil_ns_, &pc_->gil);
    } else if (e.name == site_) {
      std::string node(p_.Name(model::ArgStr(e.args, op_name_)));
      if (!node.empty()) pc_->site_of.try_emplace(node, Stack(e.args));
    }
  }

 private:
  uint32_t Frame(std::string_view text) {
    pc_->frames.push_back(ParseFrame(text));
    return static_cast<uint32_t>(pc_->frames.size() - 1);
  }
  // The stack a "frames" argument names, deduplicated by its interned text.
  uint32_t Stack(const model::ArgsView& args) {
    uint32_t text = model::ArgStr(args, frames_);
    auto [it, fresh] = stack_of_text_.try_emplace(text, 0);
    if (!fresh) return it->second;
    std::vector<uint32_t> stack;
    std::string_view list = p_.Name(text);
    for (size_t i = 0; i < list.size();) {
      size_t comma = std::min(list.find(',', i), list.size());
      int64_t n = 0;
      std::from_chars(list.data() + i, list.data() + comma, n);
      auto f = number_.find(n);
      stack.push_back(f != number_.end() ? f->second : Frame("?"));
      i = comma + 1;
    }
    pc_->idle.push_back(!stack.empty() && IsWaiting(pc_->frames[stack.back()]));
    pc_->stacks.push_back(std::move(stack));
    it->second = static_cast<uint32_t>(pc_->stacks.size() - 1);
    return it->second;
  }
  // A thread's CPU time or GIL time (argument `key`) read by the native sampler
  // (thread_cpu.h), into `by_tid`.
  void Total(const model::Point& e, uint32_t key, std::unordered_map<uint64_t, ThreadCpu>* by_tid) {
    auto tid = model::ArgInt(e.args, tid_);
    auto ns = model::ArgInt(e.args, key);
    auto at = model::ArgInt(e.args, at_);
    if (!tid || !ns || !at || *at <= 0) return;
    int64_t since = model::ArgInt(e.args, since_).value_or(0);
    (*by_tid)[static_cast<uint64_t>(*tid)].Add(
        static_cast<uint64_t>(*at), static_cast<uint64_t>(std::max<int64_t>(since, 0)), *ns);
  }
  const model::Process& p_;
  ProcessCode* pc_;
  uint32_t cpu_ = 0, cpu_ns_ = 0, gil_ = 0, gil_ns_ = 0;
  uint32_t frame_, sample_, site_, frame_id_, frame_text_, frames_, tid_, op_name_, since_, at_;
  std::unordered_map<int64_t, uint32_t> number_;  // the sampler's frame number -> index
  std::unordered_map<uint32_t, uint32_t> stack_of_text_;
};

// A Python tracer's function calls (its python slices on a thread's track: Kineto's, JAX's)
// as that thread's exact stacks over time: a sample at each call and each return, with no
// uncertainty (since = ts), kept in `exact` (by the track's id).
class TracerReader {
 public:
  TracerReader(const model::Process& p, ProcessCode* pc,
               std::unordered_map<uint64_t, std::vector<CodeSample>>* exact)
      : p_(p), pc_(pc), exact_(exact) {}
  void Start(uint64_t tid) {
    tid_ = tid;
    samples_ = nullptr;  // a thread without tracer slices gets no samples (not an empty list)
    open_.clear();
  }
  void OnBegin(const model::Slice& s) {
    if (!IsFrame(s)) return;
    open_.push_back(FrameIndex(s.name));
    Sample(s.start);
  }
  void OnSlice(const model::Slice& s) {
    if (!IsFrame(s) || open_.empty()) return;
    open_.pop_back();
    Sample(s.end);
  }
  void OnPoint(const model::Point&) {}

 private:
  bool IsFrame(const model::Slice& s) const {
    return s.category == layout::Category::kPython && IsPythonFrameName(p_.Name(s.name));
  }
  uint32_t FrameIndex(uint32_t name) {
    auto [it, fresh] = frame_of_name_.try_emplace(name, 0);
    if (fresh) {
      pc_->frames.push_back(FrameOfSlice(p_.Name(name)));
      it->second = static_cast<uint32_t>(pc_->frames.size() - 1);
    }
    return it->second;
  }
  void Sample(uint64_t ts) {
    auto [it, fresh] = stack_of_.try_emplace(open_, 0);
    if (fresh) {
      pc_->idle.push_back(!open_.empty() && IsWaiting(pc_->frames[open_.back()]));
      pc_->stacks.push_back(open_);
      it->second = static_cast<uint32_t>(pc_->stacks.size() - 1);
    }
    if (!samples_) samples_ = &(*exact_)[tid_];
    samples_->push_back({ts, ts, it->second});
  }
  const model::Process& p_;
  ProcessCode* pc_;
  std::unordered_map<uint64_t, std::vector<CodeSample>>* exact_;
  uint64_t tid_ = 0;
  std::vector<CodeSample>* samples_ = nullptr;
  std::vector<uint32_t> open_;  // frame indices, outermost first
  std::map<uint32_t, uint32_t> frame_of_name_;
  std::map<std::vector<uint32_t>, uint32_t> stack_of_;
};

// A thread's stack during [start, end]. A Python stack does not change while the thread is
// inside one call, so a look that fell inside the interval saw it: the last sample at or
// before `end`, if at or after `start`, or the stack before the next sample when that
// sample's previous look (`since`) fell inside. Else the interval lies between two looks that
// saw different stacks: the nearer one, by the middles of the interval and of the change's
// window.
uint32_t At(const std::vector<CodeSample>& v, uint64_t start, uint64_t end) {
  if (v.empty()) return kNoStack;
  auto next = std::upper_bound(v.begin(), v.end(), CodeSample{end, 0, 0});
  if (next == v.begin()) return v.front().stack;
  const CodeSample& last = *std::prev(next);
  if (last.ts >= start || next == v.end() || next->since == 0 || next->since >= start)
    return last.stack;
  bool after = start / 2 + end / 2 > next->since / 2 + next->ts / 2;
  return after ? next->stack : last.stack;
}

}  // namespace

// JAX's Python tracer: "$file.py:12 fn" (the file's base name), "$module fn" for a function
// of a built-in module. A base name is a library's until Resolve finds it is the program's.
CodeFrame FrameOfJaxSlice(std::string_view name) {
  CodeFrame f;
  std::string_view rest = name.substr(1);
  size_t space = rest.find(' ');
  std::string_view where = rest.substr(0, space);
  f.function =
      space == std::string_view::npos ? std::string(rest) : std::string(rest.substr(space + 1));
  size_t colon = where.rfind(':');
  int64_t line = 0;
  if (colon != std::string_view::npos &&
      std::from_chars(where.data() + colon + 1, where.data() + where.size(), line).ec ==
          std::errc()) {
    f.file = std::string(where.substr(0, colon));
    f.line = line;
  } else {
    f.file = "<" + std::string(where) + ">";
  }
  f.library = true;
  return f;
}

CodeFrame FrameOfSlice(std::string_view name) {
  if (name.starts_with('$')) return FrameOfJaxSlice(name);
  CodeFrame f;
  if (name.starts_with("<built-in ")) {  // "<built-in method relu of type object at 0x...>"
    std::string_view rest = name.substr(10);
    rest = rest.substr(rest.find(' ') + 1);
    f.file = "<built-in>";
    f.function = std::string(rest.substr(0, rest.find(' ')));
    f.library = true;
    return f;
  }
  size_t close = name.find("): ");
  size_t open = close == std::string_view::npos ? close : name.rfind('(', close);
  int64_t line = 0;
  if (open != std::string_view::npos &&
      std::from_chars(name.data() + open + 1, name.data() + close, line).ec == std::errc()) {
    f.file = std::string(name.substr(0, open));
    f.line = line;
    f.function = std::string(name.substr(close + 3));
  } else {
    f.file = "<" + std::string(name) + ">";
    f.function = std::string(name);
  }
  // Kineto names a file by its path under its sys.path entry ("torch/nn/x.py"; the script's
  // "train.py"). The bootstrap's frames are not the program's.
  f.library = IsLibraryFile(f.file) || f.file.find("/python/tensortrace/") != std::string::npos ||
              (!f.file.starts_with('/') && f.file.find('/') != std::string::npos);
  return f;
}

void ProcessCode::Resolve(CodeFrame* f) const {
  if (f->file.starts_with('/') || f->file.starts_with('<')) return;
  auto it = by_tail.find(f->file);
  if (it != by_tail.end()) {
    f->file = it->second->file;
    f->library = it->second->library;
    return;
  }
  // Not sampled: the script itself, as its command line names it ("python3 /x/train.py").
  for (size_t at = cmdline.find(f->file); at != std::string::npos;
       at = cmdline.find(f->file, at + 1)) {
    size_t end = at + f->file.size();
    bool whole = (end == cmdline.size() || cmdline[end] == ' ') && at > 0 && cmdline[at - 1] == '/';
    if (!whole) continue;
    size_t start = cmdline.rfind(' ', at);
    start = start == std::string::npos ? 0 : start + 1;
    if (cmdline[start] != '/') continue;
    f->file = cmdline.substr(start, end - start);
    f->library = IsLibraryFile(f->file);
    return;
  }
}

bool IsPythonFrameName(std::string_view name) { return !name.starts_with("nn.Module: "); }

bool IsLibraryFile(std::string_view file) {
  return file.empty() || file[0] == '<' || file.find("/site-packages/") != file.npos ||
         file.find("/dist-packages/") != file.npos || file.find("/lib/python3") != file.npos ||
         file == "?";
}

std::string LibraryPackage(std::string_view file) {
  if (file.empty() || file[0] == '<') return std::string(file);
  if (file.find("/python/tensortrace/") != std::string_view::npos) return "tensortrace";
  for (std::string_view dir : {"/site-packages/", "/dist-packages/"}) {
    size_t at = file.find(dir);
    if (at == file.npos) continue;
    std::string_view rest = file.substr(at + dir.size());
    return std::string(rest.substr(0, std::min(rest.find('/'), rest.find(".py"))));
  }
  size_t at = file.find("/lib/python3");
  if (at != file.npos) {
    std::string_view rest = file.substr(file.find('/', at + 5) + 1);
    return std::string(rest.substr(0, std::min(rest.find('/'), rest.find(".py"))));
  }
  return std::string(file.substr(file.rfind('/') + 1));
}

uint32_t StackOfOp(const ProcessCode& pc, std::string_view node, uint64_t tid, uint64_t start,
                   uint64_t end) {
  if (!node.empty()) {
    auto it = pc.site_of.find(std::string(node));
    if (it != pc.site_of.end()) return it->second;
  }
  if (auto own = pc.samples.find(tid); own != pc.samples.end()) return At(own->second, start, end);
  // Another thread launched it: the main thread unless it waited then, else one that did not.
  uint32_t main = kNoStack;
  if (auto it = pc.samples.find(pc.main_tid); it != pc.samples.end()) {
    main = At(it->second, start, end);
    if (main != kNoStack && !pc.idle[main]) return main;
  }
  std::vector<uint64_t> tids;
  for (const auto& [t, v] : pc.samples) tids.push_back(t);
  std::sort(tids.begin(), tids.end());  // the same answer whatever the map's order
  for (uint64_t t : tids) {
    uint32_t s = At(pc.samples.at(t), start, end);
    if (s != kNoStack && !pc.idle[s]) return s;
  }
  return main;
}

uint32_t OpStacks::Of(uint32_t name, uint64_t tid, uint64_t start, uint64_t end) {
  auto [it, fresh] = site_.try_emplace(name, kNoStack);
  if (fresh && !pc_.site_of.empty()) {
    // A TensorFlow op "scope/node:Type#...": its node name is what the graph recorded, less
    // the names of the call ops its function was inlined through
    // ("StatefulPartitionedCall/model/dense/MatMul" ran the traced "model/dense/MatMul").
    std::string_view n = proc_.Name(name);
    n = n.substr(0, n.find('#'));
    size_t colon = n.rfind(':');
    if (colon != std::string_view::npos && colon > 0) n = n.substr(0, colon);
    while (!n.empty()) {
      auto s = pc_.site_of.find(std::string(n));
      if (s != pc_.site_of.end()) {
        it->second = s->second;
        break;
      }
      size_t slash = n.find('/');
      n = slash == std::string_view::npos ? std::string_view() : n.substr(slash + 1);
    }
  }
  return it->second != kNoStack ? it->second : StackOfOp(pc_, {}, tid, start, end);
}

namespace {

// A thread's samples over [start, end], each look inside an equal share of the time; with no
// look inside, the whole to `whole`.
std::vector<std::pair<uint32_t, uint64_t>> SplitLooks(const std::vector<CodeSample>& v,
                                                      uint64_t start, uint64_t end,
                                                      uint32_t whole) {
  auto first = std::lower_bound(v.begin(), v.end(), CodeSample{start, 0, 0});
  auto last = std::upper_bound(first, v.end(), CodeSample{end, 0, 0});
  if (first == last) return {{whole, end - start}};
  std::map<uint32_t, uint64_t> looks;
  for (auto it = first; it != last; ++it) ++looks[it->stack];
  uint64_t n = static_cast<uint64_t>(last - first), given = 0;
  std::vector<std::pair<uint32_t, uint64_t>> out;
  for (const auto& [stack, k] : looks) {
    out.push_back({stack, (end - start) * k / n});
    given += out.back().second;
  }
  out.back().second += end - start - given;  // the rounding's remainder
  return out;
}

}  // namespace

std::vector<std::pair<uint32_t, uint64_t>> OpStacks::Split(uint64_t tid, uint64_t start,
                                                           uint64_t end) {
  auto own = pc_.samples.find(tid);
  if (own == pc_.samples.end() || own->second.empty()) return {};
  return SplitLooks(own->second, start, end, At(own->second, start, end));
}

std::vector<std::pair<uint32_t, uint64_t>> StacksDuring(const ProcessCode& pc, uint64_t start,
                                                        uint64_t end) {
  if (pc.samples.empty() || end <= start) return {};
  auto main = pc.samples.find(pc.main_tid);
  if (main == pc.samples.end() || main->second.empty())
    return {{StackOfOp(pc, {}, pc.main_tid, start, end), end - start}};
  // The main thread's own stack even where it waits (a loop's `for x in loader:`).
  return SplitLooks(main->second, start, end, At(main->second, start, end));
}

std::string LineOfStack(const ProcessCode& pc, uint32_t stack) {
  if (stack == kNoStack || stack >= pc.stacks.size()) return "";
  const std::vector<uint32_t>& frames = pc.stacks[stack];
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    const CodeFrame& f = pc.frames[*it];
    if (f.library) continue;
    return f.file.substr(f.file.rfind('/') + 1) + ":" + std::to_string(f.line) + " (" + f.function +
           ")";
  }
  if (frames.empty()) return "";
  return "[" + LibraryPackage(pc.frames[frames.back()].file) + "]";
}

// Where a tracer gave exact stacks, they replace the sampler's looks (which name the line a
// function was at, not the function's own, and could only mix with them): the tracer's
// busiest thread is then the main one.
void UseExactStacks(std::unordered_map<uint64_t, std::vector<CodeSample>> exact, ProcessCode* pc) {
  if (exact.empty()) return;
  uint64_t busiest = 0;
  size_t most = 0;
  for (const auto& [tid, v] : exact)
    if (v.size() > most || (v.size() == most && tid < busiest)) {
      busiest = tid;
      most = v.size();
    }
  if (!exact.count(pc->main_tid)) pc->main_tid = busiest;
  pc->samples = std::move(exact);
}

CodeIndex LoadCodeIndex(const model::TraceModel& m, std::vector<Problem>* problems) {
  CodeIndex idx;
  idx.processes.resize(m.processes.size());
  for (size_t p = 0; p < m.processes.size(); ++p) {
    ProcessCode& pc = idx.processes[p];
    pc.main_tid = static_cast<uint64_t>(m.processes[p].meta.pid);
    pc.cmdline = m.processes[p].meta.cmdline;
    Reader r(m.processes[p], &pc);
    std::unordered_map<uint64_t, std::vector<CodeSample>> exact;
    TracerReader tracer(m.processes[p], &pc, &exact);
    // Our exact tracer writes on the program's threads: read those only where it ran.
    bool ours = model::KeyId(m.processes[p], keys::kPythonTracer) != 0;
    for (size_t t : m.processes[p].tracks) {
      const model::Track& tr = m.tracks[t];
      if (tr.name == kSamplerThread || tr.name == kNativeSamplerThread) {
        model::ScanTrack(m, tr, problems, r);
      } else if (tr.kind == layout::TrackKind::kImported ||
                 (ours && tr.kind == layout::TrackKind::kThread)) {
        tracer.Start(tr.id);
        model::ScanTrack(m, tr, problems, tracer);
      }
    }
    UseExactStacks(std::move(exact), &pc);
    for (auto& [tid, v] : pc.samples) std::stable_sort(v.begin(), v.end());
    for (const CodeFrame& f : pc.frames)
      if (f.file.starts_with('/'))
        for (size_t slash = f.file.find('/'); slash != std::string::npos;
             slash = f.file.find('/', slash + 1))
          pc.by_tail.try_emplace(f.file.substr(slash + 1), &f);
    // A tracer's frames name files by a relative path (Kineto) or a base name (JAX).
    for (CodeFrame& f : pc.frames) pc.Resolve(&f);
    idx.any |= !pc.Empty();
  }
  return idx;
}

}  // namespace tt::analysis
