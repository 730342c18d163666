#!/usr/bin/env python3
"""Writes the inputs of fuzz/crashes/: small traces made by hand that reproduce what fuzzing
trace_fuzzer found (see fuzz/README.md). Each is a trace_fuzzer input: mode byte, then streams.

usage: make_reproducers.py OUT_DIR
"""
import os
import struct
import sys

# Must match kUuid in trace_fuzzer.cc.
UUID = bytes([0x7e, 0x45, 0x54, 0x72, 0xac, 0xe0, 0x4f, 0x0a,
              0x9b, 0x1c, 0x0d, 0xde, 0xf0, 0x0d, 0x5e, 0xed])
THREAD, PROCESS = 0, 1
USER, FRAMEWORK_OP, SYNC, ALLOCATION = 0, 1, 6, 7


def packet(events, kind=THREAD, ts=1000, tid=1, pid=1):
    """One packet (format/layout.h): header and context, then the events; no padding."""
    size = 93 + len(events)
    head = struct.pack("<I16sIQQQQQQQQIB", 0xC1FC1FC1, UUID, 0, 0, ts, ts, size * 8, size * 8,
                       0, 0, tid, pid, kind)
    return head + events


def event(eid, payload, ts=1000):  # compact header
    return struct.pack("<BI", eid, ts & 0xFFFFFFFF) + payload


def string_def(sid, text):
    return event(0, struct.pack("<I", sid) + text + b"\0")


def begin(name, category):
    return event(2, struct.pack("<IB", name, category))


def end():
    return event(3, b"")


def complete(name, category, duration, args=b"", nargs=0):
    return event(5, struct.pack("<IBQB", name, category, duration, nargs) + args)


def instant(name, category, args=b"", nargs=0):
    return event(6, struct.pack("<IBB", name, category, nargs) + args)


def arg_int(key, value):
    return struct.pack("<IBq", key, 0, value)


def arg_float(key, value):
    return struct.pack("<IBd", key, 2, value)


def trace(t1, proc1=None, mode=0x00):
    """A trace_fuzzer input: `t1` alone (mode 0x00), or `proc1` and `t1` (mode 0x10)."""
    if proc1 is None:
        return bytes([mode]) + t1
    return bytes([mode | 0x10]) + struct.pack("<I", len(proc1)) + proc1 + t1


METADATA_OVERFLOW = b"""/* CTF 1.8 */
trace {
  uuid = "7e455472-ace0-4f0a-9b1c-0ddef00d5eed";
};
env {
  tracer_name = "tensortrace";
  tensortrace_layout = 1;
  session = "";
  hostname = "";
  pid = 1;
  ppid = 0;
  exec_generation = 0;
  cmdline = "";
  start_realtime_ns = 0;
  realtime_offset_start_ns = 0;
  realtime_offset_end_ns = 0;
  end_state = "";
  end_offset_by = "";
  tracing_error = "";
};
clock {
  uuid = "x";
  offset_s = 9223372036854775807;
};
"""


def reproducers():
    out = {}
    # A name id near 2^31 / equal to 2^32-1 in a string_def: LoadModel sizes the names
    # vector by it (64 GiB), or id + 1 wraps to 0 and names[id] is written out of bounds.
    out["model-names-huge-id"] = trace(packet(string_def(0x7FFFFFFF, b"x"), kind=PROCESS))
    out["model-names-id-wrap"] = trace(packet(string_def(0xFFFFFFFF, b"x"), kind=PROCESS))
    # The same in the analyses: a slice named by a large id sizes DenseAggs by it, or wraps.
    out["stats-dense-aggs-huge-id"] = trace(packet(begin(0x7FFFFFFF, USER) + end()))
    out["stats-dense-aggs-id-wrap"] = trace(packet(begin(0xFFFFFFFF, USER) + end()))
    # A float argument (1e300) where an integer is read: the cast to int64 is undefined.
    names = packet(string_def(1, b"external_id") + string_def(2, b"op:Op"), kind=PROCESS)
    out["stats-arg-float-cast"] = trace(
        packet(complete(2, FRAMEWORK_OP, 10, arg_float(1, 1e300), 1)), names)
    # Two allocations of INT64_MAX bytes by one op: the per-op sums overflow int64.
    names = packet(string_def(1, b"bytes") + string_def(2, b"op:Op") +
                   string_def(3, b"MemoryAllocation") + string_def(4, b"addr"), kind=PROCESS)
    big = (1 << 63) - 1
    out["stats-alloc-bytes-overflow"] = trace(packet(
        begin(2, FRAMEWORK_OP) +
        instant(3, ALLOCATION, arg_int(1, big) + arg_int(4, 1), 2) +
        instant(3, ALLOCATION, arg_int(1, big) + arg_int(4, 2), 2) + end()), names)
    # An op named "a/a/.../a/n:Op" (20000 levels): the scope view recurses once per level.
    names = packet(string_def(1, b"a/" * 20000 + b"n:Op"), kind=PROCESS)
    out["stats-scope-deep-name"] = trace(packet(complete(1, FRAMEWORK_OP, 10)), names)
    # 13000 nested `sync` slices: each begin walks the whole open stack for the enclosing op.
    out["scan-deep-nesting"] = trace(packet(begin(1, SYNC) * 13000))
    # One name defined at the largest id allowed (model.h kMaxNameId): every stats view walks
    # all 2^22 ids comparing strings (KeysOf), about 1.3 s per view under ASan.
    out["stats-keys-sparse-id"] = trace(packet(string_def(1 << 22, b"x"), kind=PROCESS))
    # clock.offset_s = INT64_MAX: offset_s * 1e9 overflows int64 in ParseMetadata.
    out["metadata-clock-offset-overflow"] = b"\x01" + METADATA_OVERFLOW
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, data in reproducers().items():
        with open(os.path.join(sys.argv[1], name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
