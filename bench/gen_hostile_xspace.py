#!/usr/bin/env python3
"""Writes hostile .xplane.pb files for measuring the XSpace import's memory (issue 40, item 1).

  gen_hostile_xspace.py structured OUT [MB]  # many planes/lines/events/stats, ~60 MB by default
  gen_hostile_xspace.py empty OUT [MB]       # nothing but empty XPlanes, 20 MB by default

The protobuf wire format is written by hand (no protobuf package needed, and fast).
"""
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, payload):  # length-delimited field
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def vfield(num, value):  # varint field
    return varint(num << 3) + varint(value)


def event(i):
    stats = b"".join(field(4, vfield(1, 1 + s) + vfield(3, i * 7 + s)) for s in range(4))
    return field(4, vfield(1, 1 + i % 50) + vfield(2, i * 1000) + vfield(3, 500) + stats)


def line(j, events):
    return field(3, vfield(1, j) + field(2, b"line%d" % j) + vfield(3, 1_000_000) + events)


def plane(p, lines):
    meta = b"".join(
        field(4, vfield(1, k) + field(2, vfield(1, k) + field(2, b"op%d" % k))) for k in range(1, 51))
    return field(1, vfield(1, p) + field(2, b"/device:GPU:%d" % p) + lines + meta)


def structured(out, mb):
    events = b"".join(event(i) for i in range(200))  # ~10 KB of events per line
    lines = b"".join(line(j, events) for j in range(100))  # ~1 MB per plane
    with open(out, "wb") as f:
        p = 0
        while f.tell() < mb << 20:
            f.write(plane(p, lines))
            p += 1


def empty(out, mb):
    with open(out, "wb") as f:
        f.write(field(1, b"") * ((mb << 20) // 2))


if __name__ == "__main__":
    kind, out = sys.argv[1], sys.argv[2]
    mb = int(sys.argv[3]) if len(sys.argv) > 3 else (60 if kind == "structured" else 20)
    {"structured": structured, "empty": empty}[kind](out, mb)
