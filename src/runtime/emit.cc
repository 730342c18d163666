// The less frequent emitters, kept out of line.
#include "runtime/emit.h"

namespace tt::rt {

uint32_t InternName(const char* s) {
  Stream* st = t_stream;
  return st ? InternCached(&st->names, s ? s : "") : Intern(s ? s : "");
}

void EmitBeginArgs(const char* name, layout::Category cat, const Arg* args, uint32_t nargs) {
  EmitNamedWithArgs(layout::kSliceBeginArgs, name, cat, args, nargs);
}

void EmitComplete(const char* name, layout::Category cat, uint64_t duration, const Arg* args,
                  uint32_t nargs, uint64_t end_ts) {
  Stream* s = Enter();
  if (!s) return;
  uint32_t id = NameId(s, name);
  if (id && Reserve(s, 13 + ArgsSize(args, nargs))) {
    uint64_t ts = end_ts && end_ts >= s->last_ts ? end_ts : Now(s);
    uint8_t* p = PutHeader(s->pos, layout::kComplete, ts, s->last_ts);
    p = PutU32(p, id);
    p = PutU8(p, static_cast<uint8_t>(cat));
    p = PutU64(p, duration);
    Finish(s, PutArgs(p, args, nargs), ts);
  }
  Leave(s);
}

void EmitFlow(uint64_t id, layout::FlowPhase phase) {
  Stream* s = Enter();
  if (!s) return;
  if (Reserve(s, 9)) {
    uint64_t ts = Now(s);
    uint8_t* p = PutHeader(s->pos, layout::kFlow, ts, s->last_ts);
    p = PutU64(p, id);
    Finish(s, PutU8(p, static_cast<uint8_t>(phase)), ts);
  }
  Leave(s);
}

void EmitThreadName(const char* name) {
  Stream* s = Enter();
  if (!s) return;
  size_t len = std::strlen(name ? name : "");
  if (len > kMaxNameLen) len = kMaxNameLen;
  if (Reserve(s, len + 1)) {
    uint64_t ts = Now(s);
    uint8_t* p = PutHeader(s->pos, layout::kThreadName, ts, s->last_ts);
    Finish(s, PutStr(p, name ? name : "", len), ts);
  }
  Leave(s);
}

}  // namespace tt::rt
