#!/usr/bin/env python3
"""record's XSpace import in memory and time (issue 40, item 1): a profile the traced program
leaves in its XSpace directory, imported when record ends, against two references in the same
run: record of the same program leaving no profile (record's own cost), and protobuf's
generated classes parsing the same file (xplane_pb2 from the tensorflow wheel, loaded alone, in
a Python that does nothing else; its baseline subtracted).

  python3 bench/xspace_import_bench.py [--build build] [--work /tmp] [--mb 60] [--empty-mb 20]

The files come from bench/gen_hostile_xspace.py: `structured` (planes of 100 lines of 200
events with 4 stats each) and `empty` (nothing but empty XPlanes). Prints one Markdown row per
file: size, events, record's time and peak, the baseline's, the generated parse's peak
and time (the parse alone: no event read out of the messages)."""
import argparse
import glob
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_bench import run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# Leaves $1 (if any) where a TensorFlow profiler writes its XSpace, as a traced program would.
LEAVE = ('x=$TENSORTRACE_DIR/xspace/$$/plugins/profile/run; mkdir -p $x; '
         '[ -n "$1" ] && cp "$1" $x/host.xplane.pb; exit 0')
PARSE = """
import importlib.util, resource, sys, time
spec = importlib.util.spec_from_file_location("xplane_pb2", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
s = m.XSpace()
t0 = time.monotonic()
if len(sys.argv) > 2:
    s.ParseFromString(open(sys.argv[2], "rb").read())
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base, time.monotonic() - t0)
"""


def xplane_pb2():
    spec = importlib.util.find_spec("tensorflow")
    if not spec or not spec.submodule_search_locations:
        return None
    found = glob.glob(os.path.join(spec.submodule_search_locations[0],
                                   "tsl/profiler/protobuf/xplane_pb2.py"))
    return found[0] if found else None


def record(build, work, name, profile):
    trace = os.path.join(work, name)
    cmd = [f"{build}/tensortrace", "record", "--quiet", "-o", trace, "--", "sh", "-c", LEAVE, "sh"]
    secs, peak, _ = run(cmd + ([profile] if profile else []))
    imported = {"events": 0}
    for f in glob.glob(os.path.join(trace, "xspace", "*", "import.json")):
        imported = json.load(open(f))
    return secs, peak, imported


def generated_parse(module, path):
    if not module:
        return None
    out = subprocess.run([sys.executable, "-c", PARSE, module, path], capture_output=True,
                         text=True)
    if out.returncode != 0:
        return None
    kib, secs = out.stdout.split()
    return f"{int(kib) / 1024.0:.0f} MiB, {float(secs):.2f} s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--work", default=tempfile.gettempdir())
    ap.add_argument("--mb", type=int, default=60)
    ap.add_argument("--empty-mb", type=int, default=20)
    a = ap.parse_args()
    module = xplane_pb2()
    with tempfile.TemporaryDirectory(dir=a.work) as work:
        base_secs, base_peak, _ = record(a.build, work, "none", None)
        print("| profile | size | events imported | record | x baseline | record's peak | "
              "peak - baseline | / size | generated classes' parse |")
        print("|---|---|---|---|---|---|---|---|---|")
        for kind, mb in (("structured", a.mb), ("empty", a.empty_mb)):
            path = os.path.join(work, kind + ".xplane.pb")
            subprocess.run([sys.executable, os.path.join(HERE, "gen_hostile_xspace.py"), kind,
                            path, str(mb)], check=True)
            size = os.path.getsize(path) / 2**20
            secs, peak, imp = record(a.build, work, kind, path)
            parse = generated_parse(module, path)
            print(f"| {kind} | {size:.1f} MiB | {imp.get('events', 0):,} | {secs:.2f} s | "
                  f"{secs / base_secs:.1f} | {peak:.0f} MiB | {peak - base_peak:.0f} MiB | "
                  f"{(peak - base_peak) / size:.2f} | "
                  f"{parse or 'n/a'} |")
            os.remove(path)
        print(f"\nbaseline (no profile): {base_secs:.2f} s, {base_peak:.0f} MiB")


if __name__ == "__main__":
    main()
