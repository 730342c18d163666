"""Runs TensorBoard's profile plugin (xprof) converters on a log directory and prints a JSON
summary for xspace_export_test: what the plugin's own tools make of our XSpace.

usage: python3 xspace_tools.py LOGDIR   (exit 3 when xprof cannot be imported)
"""
import glob
import json
import os
import sys

try:
    from xprof.convert import raw_to_tool_data
except ImportError as e:  # the test skips on this
    print("cannot import xprof: %s" % e, file=sys.stderr)
    sys.exit(3)


def tool(files, name, params=None):
    data, _ = raw_to_tool_data.xspace_to_tool_data(files, name, params or {})
    if data is None:
        raise SystemExit("xprof gave no %s data" % name)
    return json.loads(data if isinstance(data, str) else data.decode("utf-8"))


def rows(table):
    ids = [c["id"] for c in table["cols"]]
    return [dict(zip(ids, [c.get("v") for c in r["c"]])) for r in table.get("rows", [])]


def main():
    files = glob.glob(os.path.join(sys.argv[1], "plugins", "profile", "*", "*.xplane.pb"))
    out = {"files": len(files)}
    out["tools"] = raw_to_tool_data.xspace_to_tool_names(files)
    out["kernel_stats"] = rows(tool(files, "kernel_stats"))
    out["framework_op_stats"] = rows(tool(files, "framework_op_stats")[0])
    # op_profile: every node of the op tree (excluding idle time) -> [occurrences, time in ps].
    ops = {}

    def flatten(node):
        m = node.get("metrics", {})
        ops[node["name"]] = [int(m.get("occurrences", 0)), int(m.get("rawTime", 0))]
        for child in node.get("children", []):
            flatten(child)

    flatten(tool(files, "op_profile")["byProgramExcludeIdle"])
    out["op_profile"] = ops
    overview = tool(files, "overview_page")
    out["overview_steps"] = [r["stepnum"] for r in rows(overview[1])]
    out["overview_breakdown_ms"] = rows(overview[1])
    trace = tool(files, "trace_viewer", {"trace_viewer_options": {}})
    names, first = {}, {}
    for e in trace.get("traceEvents", []):
        # The viewer shows an event of zero duration (two clock reads within the clock's
        # granularity, e.g. an empty cudaLaunchKernel range) as an instant, "i".
        if e.get("ph") in ("X", "i"):
            names[e["name"]] = names.get(e["name"], 0) + 1
            first[e["name"]] = min(first.get(e["name"], e["ts"]), e["ts"])
    out["trace_viewer"] = names
    out["trace_viewer_first_us"] = first
    memory = tool(files, "memory_profile")
    per_allocator = memory.get("memoryProfilePerAllocator", {})
    out["memory_allocators"] = sorted(per_allocator.keys())
    out["memory_peak_bytes"] = {
        k: int(v["profileSummary"]["peakStats"]["peakBytesInUse"]) for k, v in per_allocator.items()
    }
    json.dump(out, sys.stdout)


main()
