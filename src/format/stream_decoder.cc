// Decoding a stream file event by event (StreamDecoder): its packets' headers checked, each
// event's header and payload bounded by its packet, damage reported and skipped.
#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "format/reader.h"
#include "format/reader_internal.h"

namespace tt {

using namespace layout;

Arg RawEvent::ArgAt(uint32_t i) const {
  Arg a;
  ArgCursor c{args, shape};
  for (uint32_t k = 0; k <= i; ++k) c.Next(&a);
  return a;
}

// Length of a NUL-terminated string at p (including the NUL), or 0 if none before end.
static uint64_t StrSize(const uint8_t* p, const uint8_t* end) {
  const void* z = std::memchr(p, 0, static_cast<size_t>(end - p));
  return z ? static_cast<uint64_t>(static_cast<const uint8_t*>(z) - p) + 1 : 0;
}

static uint64_t ArgsSizeAt(const uint8_t* p, const uint8_t* end) {
  if (p >= end) return 0;
  uint64_t n = *p, s = 1;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t a = EncodedArgSize(p + s, static_cast<uint64_t>(end - p) - s);
    if (!a) return 0;
    s += a;
  }
  return s;
}

uint64_t PayloadSize(uint8_t id, const uint8_t* p, const uint8_t* end) {
  auto fixed = [&](uint64_t n) -> uint64_t { return static_cast<uint64_t>(end - p) >= n ? n : 0; };
  auto cat_ok = [&](uint64_t at) { return p[at] < static_cast<uint8_t>(Category::kCount); };
  uint64_t a, b, c;
  switch (id) {
    case kStringDef:
      if (!fixed(4)) return 0;
      a = StrSize(p + 4, end);
      return a ? 4 + a : 0;
    case kThreadName:
      return StrSize(p, end);
    case kSliceBegin:
      return fixed(5) && cat_ok(4) ? 5 : 0;
    case kSliceEnd:
      return 0;
    case kSliceBeginArgs:
    case kInstant:
      if (!fixed(5) || !cat_ok(4)) return 0;
      a = ArgsSizeAt(p + 5, end);
      return a ? 5 + a : 0;
    case kComplete:
      if (!fixed(13) || !cat_ok(4)) return 0;
      a = ArgsSizeAt(p + 13, end);
      return a ? 13 + a : 0;
    case kCounter:
      return fixed(13) && cat_ok(4) ? 13 : 0;
    case kFlow:
      return fixed(9) && p[8] <= 2 ? 9 : 0;
    case kClockOffset:
      a = StrSize(p, end);
      return a && static_cast<uint64_t>(end - p) >= a + 8 ? a + 8 : 0;
    case kDropSummary:
      a = StrSize(p, end);
      return a && static_cast<uint64_t>(end - p) >= a + 8 ? a + 8 : 0;
    case kNote:
      if (!fixed(1) || p[0] > 2) return 0;
      b = StrSize(p + 1, end);
      if (!b) return 0;
      c = StrSize(p + 1 + b, end);
      return c ? 1 + b + c : 0;
    case kSource:
      a = StrSize(p, end);
      if (!a) return 0;
      b = StrSize(p + a, end);
      return b ? a + b : 0;
    case kEventClassDef:
      return ClassDefSize(p, end);
    default:
      return 0;
  }
}

StreamDecoder::StreamDecoder(const std::string& path, const ProcessMeta& meta,
                             std::vector<Problem>* problems)
    : StreamDecoder(std::make_shared<MappedStream>(path), meta, problems) {}

StreamDecoder::StreamDecoder(std::shared_ptr<const MappedStream> file, const ProcessMeta& meta,
                             std::vector<Problem>* problems)
    : file_(std::move(file)), path_(file_->path()), uuid_(meta.trace_uuid), problems_(problems) {
  if (StreamHooks().decoded) StreamHooks().decoded(path_);
  for (const EventClass& c : meta.classes)
    if (c.id >= kFirstClassId && c.id <= kLastClassId) classes_[c.id - kFirstClassId] = &c;
  if (!file_->error().empty()) {
    Report(0, file_->error());
    done_ = true;
    return;
  }
  data_ = file_->data();
  size_ = file_->size();
  if (!data_) {
    done_ = true;  // an empty stream file holds no events
    return;
  }
  Window(0);
}

// What this decoder populated and has not released yet is released: the mapping may live on
// (StreamFiles) while nothing reads it.
StreamDecoder::~StreamDecoder() {
  if (data_ && populated_ > released_)
    madvise(const_cast<uint8_t*>(data_) + released_, populated_ - released_, MADV_DONTNEED);
}

void StreamDecoder::Report(uint64_t off, const std::string& what) {
  NoteDamage({path_, off, what});
  if (problems_) problems_->push_back({path_, off, what});
}

// The file is read through a window: the next kWindow bytes are populated in one call (instead
// of a fault per page), and what lies more than a window behind is released, so the memory
// mapped in stays bounded however large the file. Released pages that are read again (an open
// slice's arguments) simply fault back in from the page cache.
void StreamDecoder::Window(uint64_t pos) {
  constexpr uint64_t kWindow = 32ull << 20;
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
  if (pos + kWindow / 2 >= populated_ && populated_ < size_) {
    uint64_t start = populated_ & ~uint64_t{4095};
    uint64_t end = std::min(size_, populated_ + kWindow);
    madvise(const_cast<uint8_t*>(data_) + start, end - start, MADV_POPULATE_READ);
    populated_ = end;
  }
  if (pos > released_ + 2 * kWindow) {
    uint64_t end = (pos - kWindow) & ~uint64_t{4095};
    madvise(const_cast<uint8_t*>(data_) + released_, end - released_, MADV_DONTNEED);
    released_ = end;
  }
}

bool StreamDecoder::EnterPacket() {
  uint64_t off = packet_end_;
  if (off >= size_) return false;
  Window(off);
  uint64_t left = size_ - off;
  if (left < kPacketHeaderSize) {
    Report(off, "truncated packet header (" + std::to_string(left) + " bytes); rest skipped");
    return false;
  }
  const uint8_t* p = data_ + off;
  if (Load<uint32_t>(p + kOffMagic) != kMagic) {
    Report(off, "bad packet magic; rest of the stream skipped");
    return false;
  }
  if (std::memcmp(p + kOffUuid, uuid_.data(), 16) != 0) {
    Report(off, "packet belongs to another trace (uuid differs); rest skipped");
    return false;
  }
  uint64_t psize = Load<uint64_t>(p + kOffPacketSize), csize = Load<uint64_t>(p + kOffContentSize);
  if (psize % 8 || csize % 8 || psize / 8 < kPacketHeaderSize || csize > psize ||
      csize / 8 < kPacketHeaderSize || Load<uint32_t>(p + kOffStreamId) != 0 ||
      p[kOffTrackKind] > 3) {
    Report(off, "corrupted packet context; rest of the stream skipped");
    return false;
  }
  uint64_t pbytes = psize / 8, cbytes = csize / 8;
  if (pbytes > left) {
    if (cbytes > left) {
      Report(off, "truncated: packet of " + std::to_string(pbytes) + " bytes, file has " +
                      std::to_string(left) + "; its events past the end are lost");
      cbytes = left;
    } else {
      Report(off, "truncated: packet of " + std::to_string(pbytes) + " bytes, file has " +
                      std::to_string(left) + " (all its events are there)");
    }
    pbytes = left;
  }
  uint64_t ts_begin = Load<uint64_t>(p + kOffTsBegin);
  if (header_.packets > 0 && ts_begin < clock_) {
    Report(off, "packet starts before the previous one ended; rest skipped");
    return false;
  }
  header_.instance = Load<uint64_t>(p + kOffStreamInstance);
  header_.kind = static_cast<TrackKind>(p[kOffTrackKind]);
  header_.track_id = Load<uint64_t>(p + kOffTrackId);
  header_.pid = Load<uint32_t>(p + kOffPid);
  header_.discarded = Load<uint64_t>(p + kOffDiscarded);
  header_.packets++;
  packet_ = off;
  packet_end_ = off + pbytes;
  content_end_ = off + cbytes;
  pos_ = off + kPacketHeaderSize;
  clock_ = ts_begin;
  ts_end_ = Load<uint64_t>(p + kOffTsEnd);
  return true;
}

namespace {

// An event header: the event's id (a class's, from an extended header), its time and the
// header's size.
struct EventHead {
  uint8_t id = 0;
  uint64_t ts = 0;
  uint64_t size = 0;
};

// The header of the event at p (p < end); false where it does not fit before `end` or its id
// names no event. A compact header holds the low 32 bits of the time: the high ones are the
// clock's, one more where the low ones wrapped around.
bool ReadEventHead(const uint8_t* p, const uint8_t* end, uint64_t clock, EventHead* h) {
  if (p[0] == kExtendedId) {
    if (end - p < kExtendedHeaderSize) return false;
    uint16_t wide = Load<uint16_t>(p + 1);
    if (wide > kLastClassId) return false;
    h->id = static_cast<uint8_t>(wide);
    h->ts = Load<uint64_t>(p + 3);
    h->size = kExtendedHeaderSize;
  } else {
    if (end - p < kCompactHeaderSize) return false;
    uint32_t low = Load<uint32_t>(p + 1);
    h->id = p[0];
    h->ts = (clock & ~uint64_t{0xffffffff}) | low;
    if (low < static_cast<uint32_t>(clock)) h->ts += uint64_t{1} << 32;
    h->size = kCompactHeaderSize;
  }
  return h->id < kEventIdCount || h->id >= kFirstClassId;
}

// The event of class `c` whose payload starts at f: its kind, name and category are the
// class's, its fixed fields and argument values are read from the payload. False (nothing set)
// where the class is not defined or the payload does not fit before `end`.
bool DecodeClassEvent(const EventClass* c, const uint8_t* f, const uint8_t* end, RawEvent* ev,
                      uint64_t* size) {
  if (!c || static_cast<uint64_t>(end - f) < c->size) return false;
  ev->id = c->kind;
  ev->name = c->name;
  ev->category = c->category;
  if (c->kind == kComplete) ev->duration = Load<uint64_t>(f);
  if (c->kind == kCounter) ev->value = Load<double>(f);
  ev->nargs = c->nargs;
  ev->args = f + ClassFixedSize(c->kind);
  ev->shape = c->shape;
  *size = c->size;
  return true;
}

std::string_view CString(const uint8_t* s) {
  return std::string_view(reinterpret_cast<const char*>(s));
}

// The fields of a fixed event of kind `id` from its payload f (PayloadSize checked it); the
// fields its kind does not have keep their values.
void SetFixedEventFields(uint8_t id, const uint8_t* f, RawEvent* ev) {
  switch (id) {
    case kStringDef:
      ev->name = Load<uint32_t>(f);
      ev->s1 = CString(f + 4);
      break;
    case kThreadName:
      ev->s1 = CString(f);
      break;
    case kSliceBegin:
      ev->name = Load<uint32_t>(f);
      ev->category = static_cast<Category>(f[4]);
      break;
    case kSliceBeginArgs:
    case kInstant:
      ev->name = Load<uint32_t>(f);
      ev->category = static_cast<Category>(f[4]);
      ev->nargs = f[5];
      ev->args = f + 6;
      break;
    case kComplete:
      ev->name = Load<uint32_t>(f);
      ev->category = static_cast<Category>(f[4]);
      ev->duration = Load<uint64_t>(f + 5);
      ev->nargs = f[13];
      ev->args = f + 14;
      break;
    case kCounter:
      ev->name = Load<uint32_t>(f);
      ev->category = static_cast<Category>(f[4]);
      ev->value = Load<double>(f + 5);
      break;
    case kFlow:
      ev->u64 = Load<uint64_t>(f);
      ev->small = f[8];
      break;
    case kClockOffset:
      ev->s1 = CString(f);
      ev->i64 = Load<int64_t>(f + ev->s1.size() + 1);
      break;
    case kDropSummary:
      ev->s1 = CString(f);
      ev->u64 = Load<uint64_t>(f + ev->s1.size() + 1);
      break;
    case kNote:
      ev->small = f[0];
      ev->s1 = CString(f + 1);
      ev->s2 = CString(f + 2 + ev->s1.size());
      break;
    case kSource:
      ev->s1 = CString(f);
      ev->s2 = CString(f + ev->s1.size() + 1);
      break;
    case kEventClassDef:
      ev->args = f;  // the definition, for ParseClassDef
      break;
    default:
      break;
  }
}

// A fixed event (not of a class) of kind `id` whose payload starts at f. False (nothing set)
// where the payload is damaged or does not fit before `end`.
bool DecodeFixedEvent(uint8_t id, const uint8_t* f, const uint8_t* end, RawEvent* ev,
                      uint64_t* size) {
  uint64_t n = PayloadSize(id, f, end);
  if (n == 0 && id != kSliceEnd) return false;
  ev->nargs = 0;  // the fields each kind sets are set below; the rest keep old values
  ev->shape = nullptr;
  ev->id = id;
  SetFixedEventFields(id, f, ev);
  *size = n;
  return true;
}

}  // namespace

bool StreamDecoder::Next(RawEvent* ev) {
  while (!done_) {
    if (!in_packet_) {
      if (!EnterPacket()) {
        done_ = true;
        return false;
      }
      in_packet_ = true;
    }
    if (pos_ >= content_end_) {
      in_packet_ = false;
      continue;
    }
    const uint8_t* p = data_ + pos_;
    const uint8_t* end = data_ + content_end_;
    EventHead h;
    uint64_t n = 0;
    // Every event lies between its packet's timestamp_begin and timestamp_end: a damaged
    // timestamp that still decodes is caught here, before it pushes the clock forward.
    bool ok = ReadEventHead(p, end, clock_, &h) && h.ts >= clock_ && h.ts <= ts_end_ &&
              (h.id >= kFirstClassId
                   ? DecodeClassEvent(classes_[h.id - kFirstClassId], p + h.size, end, ev, &n)
                   : DecodeFixedEvent(h.id, p + h.size, end, ev, &n));
    if (!ok) {
      Report(pos_, "corrupted event (id " + std::to_string(data_[pos_]) +
                       "); rest of this packet skipped");
      in_packet_ = false;
      continue;
    }
    clock_ = h.ts;
    ev->ts = h.ts;
    ev->offset = pos_;
    pos_ += h.size + n;
    return true;
  }
  return false;
}

}  // namespace tt
