// The hot path: writing one event into the calling thread's stream. Every source goes through
// these functions. No lock, no allocation, no system call unless a packet is full.
#pragma once
#include "core/hot.h"
#include "runtime/process.h"

namespace tt::rt {

// Moves the drops counted while busy into the packet context (the stream's thread only).
inline void FoldDrops(Stream* s) {
  // One exchange: a handler that counts a drop between a load and a store would be lost.
  uint32_t n = s->pending_drops.exchange(0, std::memory_order_relaxed);
  CountDropReason(kDropBusy, n);
  CountDrop(s, n);
}

// Enters the thread's stream for one event; null if the event must be skipped (tracing off,
// or re-entered from a signal handler, which is counted as a drop).
TT_HOT Stream* Enter() {
  if (!Enabled()) return nullptr;
  Stream* s = t_stream;
  if (__builtin_expect(s == nullptr, 0)) {
    s = AttachThread();
    if (!s) return nullptr;
  }
  if (__builtin_expect(s->busy != 0, 0)) {
    s->pending_drops.store(s->pending_drops.load(std::memory_order_relaxed) + 1,
                           std::memory_order_relaxed);
    return nullptr;
  }
  s->busy = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (__builtin_expect(s->pending_drops.load(std::memory_order_relaxed) != 0, 0)) FoldDrops(s);
  return s;
}

TT_HOT void Leave(Stream* s) {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  s->busy = 0;
}

// Whether the packet has room for `payload` bytes plus the largest header (as addresses: the
// compiler then reuses its load of `pos` for the event's header).
TT_HOT bool HasRoom(const Stream* s, uint64_t payload) {
  return reinterpret_cast<uintptr_t>(s->pos) + payload + kMaxHeader <=
         reinterpret_cast<uintptr_t>(s->end);
}

// Whether no event is being written and no drop waits to be folded. Two loads: one 8-byte
// load of both words would wait for the previous event's 4-byte store of `busy` (Leave) to
// commit, since a store cannot be forwarded to a wider load.
TT_HOT bool Idle(Stream* s) {
  return (s->busy | s->pending_drops.load(std::memory_order_relaxed)) == 0;
}

// Room for `payload` bytes plus the largest header; false (and a counted drop) if none.
TT_HOT bool Reserve(Stream* s, uint64_t payload) {
  if (__builtin_expect(HasRoom(s, payload), 1)) return true;
  if (NextPacket(s, payload + kMaxHeader)) return true;
  CountNoRoom(s);
  return false;
}

// The stream's clock, never behind its last event: from the TSC without its slow cases (false
// where they are needed), or any way.
//
// A time from TscNow is at most 10 ms (the re-anchoring interval) past the stream's anchor, and
// the anchor is never more than kAnchorLead past the stream's last event (Now keeps it so), so
// the event follows the last by under 2^32 ns: the fast paths write compact headers without
// checking the gap (PutCompactHeader).
inline constexpr uint64_t kAnchorLead = uint64_t{1} << 31;

TT_HOT bool TscNow(const Stream* s, uint64_t* ts) {
  if (!TscNowNs(&s->anchor, ts)) return false;
  *ts = *ts < s->last_ts ? s->last_ts : *ts;
  return true;
}

TT_HOT uint64_t Now(Stream* s) {
  uint64_t t;
  if (TscNow(s, &t)) return t;
  t = SlowNowNs(&s->anchor);
  // Re-anchored long after the last event (a thread idle for seconds, then ThreadNowNs, which
  // writes nothing): the anchor is made unusable, so TscNow fails until an event written the
  // general way (whose header takes the whole gap) brings the last event up to date. Half the
  // counter's range away, TscNowNs's difference is near 2^63 even if the TSC reads a little
  // behind the anchor (on another CPU).
  if (t > s->last_ts + kAnchorLead) s->anchor.tsc += uint64_t{1} << 63;
  return t < s->last_ts ? s->last_ts : t;
}

TT_HOT void Finish(Stream* s, uint8_t* p, uint64_t ts) {
  Commit(s->base, p, ts);
  s->pos = p;
  s->last_ts = ts;
}

// Writes one event into the process stream (caller holds the lock); false if it has no room.
template <typename F>
bool WriteProcEvent(uint8_t id, uint64_t payload, F fill) {
  Stream* s = ProcessStream();
  if (!s || !Reserve(s, payload)) return false;
  uint64_t ts = Now(s);
  Finish(s, fill(PutHeader(s->pos, id, ts, s->last_ts)), ts);
  return true;
}

TT_HOT uint32_t NameId(Stream* s, const char* name) {
  uint32_t id = InternCached(&s->names, name ? name : "");
  if (__builtin_expect(id == 0, 0)) {
    CountDropReason(kDropNames, 1);
    CountDrop(s, 1);
  }
  return id;
}

// The name id and class of a named event whose arguments are encoded as `enc` (the first
// min(n, kMaxClassArgs)), as id | class << 32, found through the name and class caches (or the
// process tables) and remembered in the name's cache entry for the fast path; 0 (a counted
// drop) if the name could not be interned.
uint64_t LookupNamed(Stream* s, uint8_t kind, const char* name, layout::Category cat,
                     const Arg* args, const ArgEnc* enc, uint32_t n);

// A named event the general way (out of line): attaching the thread, a drop, a name or class
// the name's cache entry does not remember, a packet switch, the clock's slow cases. `shape`
// packs kind | category << 8 | nargs << 16: five arguments, all in registers, so that the fast
// path leaves for it with a jump.
void EmitNamedSlow(uint64_t shape, const char* name, uint64_t fixed, const Arg* args,
                   uint64_t end_ts);

TT_HOT uint64_t NamedShape(uint8_t kind, layout::Category cat, uint32_t nargs) {
  return uint64_t{kind} | uint64_t{static_cast<uint8_t>(cat)} << 8 | uint64_t{nargs} << 16;
}

// The time of an event: `end_ts` if nonzero and not in the stream's past, else now.
TT_HOT uint64_t EventTime(Stream* s, uint64_t end_ts) {
  return end_ts && end_ts >= s->last_ts ? end_ts : Now(s);
}

// Writes a named event of name id `id` and class `cls` (0: self-described) where room was
// reserved.
TT_HOT void PutNamed(Stream* s, uint8_t kind, uint32_t id, uint8_t cls, layout::Category cat,
                     uint64_t fixed, const Arg* args, const ArgEnc* enc, uint32_t nargs,
                     uint64_t ts) {
  uint8_t* p = PutHeader(s->pos, cls ? cls : kind, ts, s->last_ts);
  Finish(s, PutNamedPayload(p, kind, cls != 0, id, cat, fixed, args, enc, nargs), ts);
}

// The class a named event takes on the fast path: the one its name's cache entry remembers,
// if the entry is this name's and the event fits it (MemoClass; `bits`: the values to store);
// 0 where the general way is needed.
TT_HOT uint8_t FastClass(Stream* s, uint8_t kind, const char* name, layout::Category cat,
                         const Arg* args, uint32_t nargs, uint64_t* bits,
                         const NameCache::Entry** entry) {
  const NameCache::Entry& e = NameSlot(&s->names, name);
  *entry = &e;
  if (__builtin_expect(e.ptr != name || !SameTextNoCall(e, name), 0)) return 0;
  return MemoClass(e, MemoWord(kind, cat, nargs), args, nargs, bits);
}

// The fast path of a named event on a stream the caller holds (no drop to fold): its name's cache
// entry remembers a class the event fits, the packet has room, the TSC clock needs no re-anchoring.
// It makes no call, so the compiler saves few registers or none for it. False (nothing
// written) where the general way is needed.
TT_HOT bool TryEmitNamed(Stream* s, uint8_t kind, const char* name, layout::Category cat,
                         uint64_t fixed, const Arg* args, uint32_t nargs, uint64_t end_ts) {
  uint64_t bits[NameCache::kMemoArgs] = {};
  const NameCache::Entry* e;
  uint8_t cls = FastClass(s, kind, name, cat, args, nargs, bits, &e);
  if (__builtin_expect(cls == 0, 0)) return false;
  // Room for the event with its class: a constant for the compiler.
  if (__builtin_expect(!HasRoom(s, NamedPayloadRoom(kind, true, args, nargs)), 0)) return false;
  uint64_t ts;
  uint8_t* p;
  if (end_ts && end_ts >= s->last_ts) {  // a complete stamped by its caller: any gap
    ts = end_ts;
    p = PutHeader(s->pos, cls, ts, s->last_ts);
  } else {
    if (__builtin_expect(!TscNow(s, &ts), 0)) return false;
    p = PutCompactHeader(s->pos, cls, ts);
  }
  if (layout::ClassFixedSize(kind)) p = PutU64(p, fixed);
  TT_UNROLL(4)
  for (uint32_t i = 0; i < nargs && i < NameCache::kMemoArgs; ++i) {
    Store<uint64_t>(p, bits[i]);
    p += e->memo_size[i];
  }
  Finish(s, p, ts);
  return true;
}

// A named event (slice_begin, slice_begin_args, complete, instant, counter): its class id and
// values where it has a class (event_classes.h), else self-described. `fixed` holds complete's
// duration or counter's value; a complete with a nonzero `end_ts` not in the stream's past is
// stamped then.
TT_HOT void EmitNamed(uint8_t kind, const char* name, layout::Category cat, uint64_t fixed,
                      const Arg* args, uint32_t nargs, uint64_t end_ts = 0) {
  if (!Enabled()) return;
  if (!layout::KindHasArgs(kind)) nargs = 0;
  Stream* s = t_stream;
  // A null name matches no cache entry (kNoName): the general way writes it as "".
  if (__builtin_expect(s != nullptr && Idle(s) && nargs <= NameCache::kMemoArgs, 1)) {
    s->busy = 1;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    bool done = TryEmitNamed(s, kind, name, cat, fixed, args, nargs, end_ts);
    Leave(s);
    if (__builtin_expect(done, 1)) return;
  }
  EmitNamedSlow(NamedShape(kind, cat, nargs), name, fixed, args, end_ts);
}

TT_HOT void EmitBegin(const char* name, layout::Category cat) {
  EmitNamed(layout::kSliceBegin, name, cat, 0, nullptr, 0);
}

// A slice's end the general way (out of line).
void EmitEndSlow();

TT_HOT void EmitEnd() {
  if (!Enabled()) return;
  Stream* s = t_stream;
  if (__builtin_expect(s != nullptr && Idle(s), 1)) {
    s->busy = 1;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    uint64_t ts;
    bool fast = HasRoom(s, 0) && TscNow(s, &ts);
    if (__builtin_expect(fast, 1)) Finish(s, PutCompactHeader(s->pos, layout::kSliceEnd, ts), ts);
    Leave(s);
    if (__builtin_expect(fast, 1)) return;
  }
  EmitEndSlow();
}

// An instant (nargs == 0 is fine). At most 255 arguments.
TT_HOT void EmitInstant(const char* name, layout::Category cat, const Arg* args, uint32_t nargs) {
  EmitNamed(layout::kInstant, name, cat, 0, args, nargs);
}

TT_HOT void EmitCounter(const char* name, layout::Category cat, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  EmitNamed(layout::kCounter, name, cat, bits, nullptr, 0);
}

// The calling thread's event clock (its stream's, never behind its last event), for sources
// that time a call themselves and emit it later: such a slice then lies inside the ranges that
// were open around the call. CLOCK_MONOTONIC when the thread has no stream or is mid-event.
inline uint64_t ThreadNowNs() {
  Stream* s = Enabled() ? t_stream : nullptr;
  if (!s || s->busy) return ReadClockNs(CLOCK_MONOTONIC);
  s->busy = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  uint64_t t = Now(s);
  Leave(s);
  return t;
}

// Non-inline emitters for sources that need them (rarer events).
void EmitBeginArgs(const char* name, layout::Category cat, const Arg* args, uint32_t nargs);
// A complete slice that ended now (or at `end_ts` if nonzero and not in the past of the
// stream) and lasted `duration` ns.
void EmitComplete(const char* name, layout::Category cat, uint64_t duration, const Arg* args,
                  uint32_t nargs, uint64_t end_ts = 0);
void EmitFlow(uint64_t id, layout::FlowPhase phase);
void EmitThreadName(const char* name);
// An interned id for an argument key or string value; 0 on failure.
uint32_t InternName(const char* s);

}  // namespace tt::rt
