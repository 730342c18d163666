// The byte layout of tensortrace's CTF 1.8 streams: packet header and context, event header,
// event ids and payloads. metadata.cc describes exactly this layout in TSDL; writer.h and
// reader.cc encode and decode it. Everything is little-endian and byte-aligned.
#pragma once
#include <cstdint>

namespace tt::layout {

// 2: arguments stored at the narrowest width that holds their value exactly (ArgWire).
// 3: event classes (ids kFirstClassId and up, defined by event_class_def).
// Version 1 and 2 traces read as well.
inline constexpr uint32_t kLayoutVersion = 3;
inline constexpr uint32_t kOldestLayoutVersion = 1;
inline constexpr uint32_t kMagic = 0xC1FC1FC1;

// Packet header (trace.packet.header) then packet context (stream.packet.context).
inline constexpr uint32_t kOffMagic = 0;          // uint32
inline constexpr uint32_t kOffUuid = 4;           // uint8[16]
inline constexpr uint32_t kOffStreamId = 20;      // uint32, always 0
inline constexpr uint32_t kOffStreamInstance = 24;  // uint64
inline constexpr uint32_t kOffTsBegin = 32;       // uint64, clock
inline constexpr uint32_t kOffTsEnd = 40;         // uint64, clock
inline constexpr uint32_t kOffContentSize = 48;   // uint64, bits
inline constexpr uint32_t kOffPacketSize = 56;    // uint64, bits
inline constexpr uint32_t kOffSeqNum = 64;        // uint64
inline constexpr uint32_t kOffDiscarded = 72;     // uint64, cumulative per stream
inline constexpr uint32_t kOffTrackId = 80;       // uint64 (tid for threads)
inline constexpr uint32_t kOffPid = 88;           // uint32
inline constexpr uint32_t kOffTrackKind = 92;     // uint8, TrackKind
inline constexpr uint32_t kPacketHeaderSize = 93;

enum class TrackKind : uint8_t { kThread = 0, kProcess = 1, kDevice = 2, kImported = 3 };

// Event header: uint8 id; id < 255: uint32 low bits of the timestamp (compact);
// id == 255: uint16 real id, uint64 full timestamp (extended).
inline constexpr uint8_t kExtendedId = 255;
inline constexpr uint32_t kCompactHeaderSize = 5;
inline constexpr uint32_t kExtendedHeaderSize = 11;

enum EventId : uint8_t {
  kStringDef = 0,       // uint32 id; string value
  kThreadName = 1,      // string name
  kSliceBegin = 2,      // uint32 name; uint8 category
  kSliceEnd = 3,        // (no fields)
  kSliceBeginArgs = 4,  // uint32 name; uint8 category; uint8 nargs; arg[nargs]
  kComplete = 5,        // uint32 name; uint8 category; uint64 duration; uint8 nargs; arg[nargs]
  kInstant = 6,         // uint32 name; uint8 category; uint8 nargs; arg[nargs]
  kCounter = 7,         // uint32 name; uint8 category; double value
  kFlow = 8,            // uint64 id; uint8 phase
  kClockOffset = 9,     // string clock; int64 offset_ns (clock value = trace time + offset)
  kDropSummary = 10,    // string reason; uint64 count
  kNote = 11,           // uint8 severity; string source; string text
  kSource = 12,         // string name; string detail
  kEventClassDef = 13,  // uint16 id; uint8 kind; uint32 name; uint8 category; uint8 nargs;
                        // {uint32 key; uint8 encoding}[nargs] (process stream)
  kEventIdCount = 14,
};

// An event class stands for a kind (slice_begin, slice_begin_args, complete, instant, counter)
// with a fixed name, category, argument keys and argument encodings. An event of class id
// kFirstClassId..kLastClassId carries only what varies: complete's duration or counter's value,
// then each argument's value in the class's encoding. The process stream defines each class
// before its first use; the metadata declares them for other CTF readers.
inline constexpr uint32_t kFirstClassId = 16;
inline constexpr uint32_t kLastClassId = 254;  // compact headers keep 255 for the extended form
inline constexpr uint32_t kMaxClassArgs = 6;
// Bytes before the argument values in a class's events: complete's duration, counter's value.
inline constexpr uint32_t ClassFixedSize(uint8_t kind) {
  return kind == kComplete || kind == kCounter ? 8 : 0;
}
inline constexpr bool ClassKindOk(uint8_t kind) {
  return kind == kSliceBegin || kind == kSliceBeginArgs || kind == kComplete ||
         kind == kInstant || kind == kCounter;
}
inline constexpr bool KindHasArgs(uint8_t kind) {
  return kind == kSliceBeginArgs || kind == kComplete || kind == kInstant;
}

// A complete slice is stamped at its end; begin = timestamp - duration, so streams stay sorted.
enum class Category : uint8_t {
  kUser = 0,
  kFrameworkOp = 1,
  kRuntimeApi = 2,
  kGpuKernel = 3,
  kMemcpy = 4,
  kMemset = 5,
  kSync = 6,
  kAllocation = 7,
  kCommunication = 8,
  kPython = 9,
  kPrimitive = 10,
  kStep = 11,
  kCount = 12,
};

const char* CategoryName(Category c);
// The metadata's name of a fixed event id ("unknown" past them).
const char* EventName(uint8_t id);

// An argument's type as readers see it.
enum class ArgType : uint8_t { kInt = 0, kUint = 1, kFloat = 2, kString = 3 };

// Argument on disk: uint32 key (interned); uint8 encoding; the value in that encoding. The
// writer picks the narrowest encoding that gives back the exact value (an int64 of 5 is one
// byte; a double that a float holds bit for bit is four); readers widen it to its ArgType.
enum class ArgWire : uint8_t {
  kI64 = 0, kU64 = 1, kF64 = 2, kStr = 3,  // the full widths (and layout version 1's only ones)
  kI8 = 4, kI16 = 5, kI32 = 6, kU32 = 7, kF32 = 8,
  kCount = 9,
};
inline constexpr uint32_t kArgHeadSize = 5;  // key and encoding
inline constexpr uint32_t kArgMaxSize = kArgHeadSize + 8;
// At namespace scope: a table local to the function was rebuilt on the stack at every call.
inline constexpr uint8_t kArgWireSizes[] = {8, 8, 8, 4, 1, 2, 4, 4, 4};
inline constexpr uint32_t ArgWireSize(ArgWire w) {
  return kArgWireSizes[static_cast<uint8_t>(w)];
}
inline constexpr ArgType ArgWireType(ArgWire w) {
  constexpr ArgType kTypes[] = {ArgType::kInt, ArgType::kUint,  ArgType::kFloat,
                                ArgType::kString, ArgType::kInt, ArgType::kInt,
                                ArgType::kInt,  ArgType::kUint, ArgType::kFloat};
  return kTypes[static_cast<uint8_t>(w)];
}

enum class FlowPhase : uint8_t { kOut = 0, kStep = 1, kIn = 2 };
enum class Severity : uint8_t { kInfo = 0, kWarning = 1, kError = 2 };

}  // namespace tt::layout
