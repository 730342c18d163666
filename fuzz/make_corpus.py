#!/usr/bin/env python3
"""Turns real trace directories into seed inputs for trace_fuzzer.

usage: make_corpus.py OUT_DIR TRACE_DIR...

For each process directory (one holding `metadata`) under each TRACE_DIR:
  - its metadata becomes an input of mode 0x01 (metadata text);
  - each stream file becomes inputs of mode 0x00 and 0x0e (the stream alone, as `t1`, without
    and with step selection), and each thread or device stream also inputs of mode 0x10 and
    0x1e (the process stream as `proc1`, then the stream as `t1`). Packets are rewritten to
    carry trace_fuzzer's fixed uuid, and each is cut to its content (packet_size =
    content_size), so that the seeds hold events, not padding.
"""
import hashlib
import os
import struct
import sys

# Must match kUuid in trace_fuzzer.cc.
UUID = bytes([0x7e, 0x45, 0x54, 0x72, 0xac, 0xe0, 0x4f, 0x0a,
              0x9b, 0x1c, 0x0d, 0xde, 0xf0, 0x0d, 0x5e, 0xed])
MAGIC = 0xC1FC1FC1
HEADER = 93  # packet header + context (format/layout.h)
OFF_CONTENT, OFF_PACKET = 48, 56


def compact(data):
    out = bytearray()
    off = 0
    while off + HEADER <= len(data):
        if struct.unpack_from("<I", data, off)[0] != MAGIC:
            break
        content, packet = struct.unpack_from("<QQ", data, off + OFF_CONTENT)
        if content % 8 or packet % 8 or content > packet or content // 8 < HEADER:
            break
        cbytes = min(content // 8, len(data) - off)
        pkt = bytearray(data[off:off + cbytes])
        pkt[4:20] = UUID
        struct.pack_into("<QQ", pkt, OFF_CONTENT, cbytes * 8, cbytes * 8)
        out += pkt
        off += packet // 8
    return bytes(out)


def write(out_dir, data):
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    count = 0
    for top in sys.argv[2:]:
        for root, _, files in os.walk(top):
            if "metadata" not in files:
                continue
            with open(os.path.join(root, "metadata"), "rb") as f:
                write(out_dir, b"\x01" + f.read())
                count += 1
            streams = {}
            for name in sorted(files):
                if name == "metadata" or name.startswith("."):
                    continue
                with open(os.path.join(root, name), "rb") as f:
                    stream = compact(f.read())
                if stream:
                    streams[name] = stream
            procs = [s for s in streams.values() if s[92] == 1]  # track_kind: process
            for name, stream in streams.items():
                for mode in (b"\x00", b"\x0e"):
                    write(out_dir, mode + stream)
                    count += 1
                if stream[92] == 1:
                    continue
                # With the process stream beside it: names resolve, and the analyses find the
                # argument keys they look for.
                for proc in procs:
                    for mode in (b"\x10", b"\x1e"):
                        write(out_dir, mode + struct.pack("<I", len(proc)) + proc + stream)
                        count += 1
    print(f"make_corpus: {count} seeds in {out_dir}")
    if count == 0:
        sys.exit("make_corpus: no seeds (no process directory found)")


if __name__ == "__main__":
    main()
