// The less frequent emitters, kept out of line.
#include "runtime/emit.h"

namespace tt::rt {

uint32_t InternName(const char* s) {
  if (!Enabled()) return 0;
  // Attach first: a forked child starts its own name table there, and an id taken from the
  // parent's table before that would name something else in the child's trace.
  Stream* st = t_stream ? t_stream : AttachThread();
  return st ? InternCached(&st->names, s ? s : "") : 0;
}

uint64_t LookupNamed(Stream* s, uint8_t kind, const char* name, layout::Category cat,
                     const Arg* args, const ArgEnc* enc, uint32_t n) {
  uint32_t id = NameId(s, name);
  if (id == 0) return 0;
  uint8_t cls = n <= layout::kMaxClassArgs ? ClassOf(&s->classes, kind, id, cat, args, enc, n) : 0;
  NameCache::Entry& e = NameSlot(&s->names, name);
  if (e.ptr == name) Remember(e, MemoWord(kind, cat, n), args, enc, n, cls);
  return id | uint64_t{cls} << 32;
}

void EmitNamedSlow(uint64_t shape, const char* name, uint64_t fixed, const Arg* args,
                   uint64_t end_ts) {
  auto kind = static_cast<uint8_t>(shape);
  auto cat = static_cast<layout::Category>(shape >> 8);
  auto nargs = static_cast<uint32_t>(shape >> 16);
  Stream* s = Enter();
  if (!s) return;
  if (!name) name = "";
  ArgEnc enc[layout::kMaxClassArgs];
  for (uint32_t i = 0; i < nargs && i < layout::kMaxClassArgs; ++i) enc[i] = EncodeArg(args[i]);
  if (uint64_t found = LookupNamed(s, kind, name, cat, args, enc, nargs)) {
    if (Reserve(s, NamedPayloadRoom(kind, false, args, nargs))) {
      PutNamed(s, kind, static_cast<uint32_t>(found), static_cast<uint8_t>(found >> 32), cat,
               fixed, args, enc, nargs, EventTime(s, end_ts));
    }
  }
  Leave(s);
}

void EmitEndSlow() {
  Stream* s = Enter();
  if (!s) return;
  if (Reserve(s, 0)) {
    uint64_t ts = Now(s);
    Finish(s, PutHeader(s->pos, layout::kSliceEnd, ts, s->last_ts), ts);
  }
  Leave(s);
}

void EmitBeginArgs(const char* name, layout::Category cat, const Arg* args, uint32_t nargs) {
  EmitNamed(layout::kSliceBeginArgs, name, cat, 0, args, nargs);
}

void EmitComplete(const char* name, layout::Category cat, uint64_t duration, const Arg* args,
                  uint32_t nargs, uint64_t end_ts) {
  EmitNamed(layout::kComplete, name, cat, duration, args, nargs, end_ts);
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
