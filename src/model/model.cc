#include "model/model.h"

#include <string>
#include <string_view>
#include <unordered_set>

#include "core/files.h"
#include "model/inventory.h"

namespace tt::model {

using namespace layout;

void Process::DecideMeanings() {
  user_meaning.resize(names.size());
  op_meaning.resize(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    user_meaning[i] = model::MeaningOf(Category::kUser, names[i]);
    op_meaning[i] = model::MeaningOf(Category::kFrameworkOp, names[i]);
    if (names[i] == "tf_function_call") tf_function_key = static_cast<uint32_t>(i);
  }
  // torch.compile times each phase twice: "X (dynamo_timed)" and Kineto's op "X" around it.
  // A name that also exists timed is that phase, compile whatever its category.
  constexpr std::string_view kTimed = " (dynamo_timed)";
  std::unordered_set<std::string_view> timed;
  for (const std::string& n : names)
    if (n.ends_with(kTimed)) timed.insert(std::string_view(n).substr(0, n.size() - kTimed.size()));
  if (timed.empty()) return;
  for (size_t i = 0; i < names.size(); ++i)
    if (timed.count(names[i])) user_meaning[i] = op_meaning[i] = Meaning::kCompile;
}

namespace {

// The first event fixes the packet header; the process stream is read whole (names), thread
// streams only their first events: a thread is named after the process when its stream opens
// and usually renamed right after, so the last name among those wins. With `inventory`, every
// event of the stream is read, and counted there too (one read for both).
struct StreamLoad {
  Track tr;
  TrackKind kind = TrackKind::kThread;  // the header's kind where the model stopped reading
  bool packets = false;
  std::vector<size_t> own_problems;  // indices of the model's own problems (not the decoder's)
};

StreamLoad LoadStream(StreamDecoder& dec, const std::string& file, Process* p,
                      std::vector<Problem>* problems, ProcessSummary* ps, ThreadSummary* th) {
  constexpr int kNameWindow = 256;
  StreamLoad r;
  RawEvent ev;
  int seen = 0;
  bool any = dec.Next(&ev);
  const StreamHeader& h = dec.header();
  r.packets = h.packets > 0;
  r.tr.kind = h.kind;
  r.tr.id = h.track_id;
  bool names = r.packets;
  r.kind = h.kind;
  while (any) {
    if (ps) TallyEvent(ev, ps, th);
    if (names) {
      if (ev.id == kStringDef && ev.name > kMaxNameId) {
        r.own_problems.push_back(problems->size());
        problems->push_back(
            {file, ev.offset,
             "name id " + std::to_string(ev.name) + " out of range; definition skipped"});
        NoteDamage(problems->back());  // reported by the command as the decoder's are
      } else if (ev.id == kStringDef) {
        if (ev.name >= p->names.size()) p->names.resize(ev.name + 1);
        p->names[ev.name] = std::string(ev.s1);
      } else if (ev.id == kThreadName) {
        r.tr.name = std::string(ev.s1);
      }
      r.kind = h.kind;
      if ((h.kind != TrackKind::kProcess && ++seen >= kNameWindow) || h.kind == TrackKind::kDevice)
        names = false;
    }
    if (!names && !ps) break;
    any = dec.Next(&ev);
  }
  if (names) r.kind = h.kind;
  return r;
}

}  // namespace

TraceModel LoadModel(const std::string& dir) { return LoadModel(OpenTrace(dir)); }

TraceModel LoadModel(const TraceDir& t, TraceSummary* inventory) {
  TraceModel m;
  m.path = t.path;
  m.problems = t.problems;
  m.files = t.files;
  if (inventory) {
    *inventory = TraceSummary();
    inventory->path = t.path;
    inventory->problems = t.problems;
  }
  for (const auto& pt : t.processes) {
    Process p;
    p.meta = pt.meta;
    p.recording = pt.recording.empty() ? t.path : pt.recording;
    for (size_t i = 1; i < pt.captures.size(); ++i)
      p.capture_gaps.push_back({pt.captures[i - 1].second, pt.captures[i].first});
    size_t pi = m.processes.size();
    ProcessSummary ps;
    if (inventory) ps = StartProcess(pt);
    for (const auto& file : pt.streams) {
      // Damage in thread and device streams is reported when they are scanned; here only the
      // process stream (read whole) reports its own.
      std::vector<Problem> problems;
      StreamDecoder dec(m.Stream(file), pt.meta, &problems);
      ThreadSummary th;
      th.file = file;
      StreamLoad s = LoadStream(dec, file, &p, &problems, inventory ? &ps : nullptr, &th);
      if (inventory) {  // the decoder's problems, as Summarise reports them
        inventory->bytes += dec.file_size();
        for (size_t i = 0, own = 0; i < problems.size(); ++i) {
          if (own < s.own_problems.size() && s.own_problems[own] == i) {
            ++own;
            continue;
          }
          inventory->problems.push_back(problems[i]);
        }
        TallyStreamEnd(dec.header(), std::move(th), &ps);
      }
      s.tr.bytes = dec.file_size();
      m.bytes += s.tr.bytes;
      if (!s.packets) continue;
      s.tr.process = pi;
      s.tr.file = file;
      if (s.kind == TrackKind::kDevice)
        s.tr.name = "GPU " + std::to_string(s.tr.id >> 32) + " stream " +
                    std::to_string(s.tr.id & 0xffffffff);
      if (s.kind == TrackKind::kProcess) {  // names only
        m.problems.insert(m.problems.end(), problems.begin(), problems.end());
        continue;
      }
      p.tracks.push_back(m.tracks.size());
      m.tracks.push_back(std::move(s.tr));
    }
    p.DecideMeanings();
    m.processes.push_back(std::move(p));
    if (inventory) AddProcessSummary(std::move(ps), inventory);
  }
  if (inventory) FinishSummary(inventory);
  return m;
}

}  // namespace tt::model
