"""Prints xprof's own framework op statistics of an XSpace capture as JSON, by op type:
{"TYPE": [occurrences, total self time in microseconds], ...} (host and device rows summed;
the IDLE row left out). The reference tf_workloads_test compares tensortrace's op view with.
Fails when xprof's table is cut (it shows the 500 ops with the most self time): its sums by type
would then miss the smaller ops. JAX's XLA ops on the CPU are not in the table (it is empty).

usage: python3 xprof_op_stats.py FILE.xplane.pb...   (exit 3 when xprof cannot be imported)
"""
import json
import sys

try:
    from xprof.convert import raw_to_tool_data
except ImportError as e:  # the test skips on this
    print("cannot import xprof: %s" % e, file=sys.stderr)
    sys.exit(3)


def main():
    data, _ = raw_to_tool_data.xspace_to_tool_data(sys.argv[1:], "framework_op_stats", {})
    if data is None:
        raise SystemExit("xprof gave no framework_op_stats")
    table = json.loads(data if isinstance(data, str) else data.decode("utf-8"))[0]
    ids = [c["id"] for c in table["cols"]]
    if len(table.get("rows", [])) >= 500:
        raise SystemExit("xprof's framework_op_stats is cut at 500 rows: sums by type would be "
                         "partial")
    by_type = {}
    for r in table.get("rows", []):
        row = dict(zip(ids, [c.get("v") for c in r["c"]]))
        if row["type"] == "IDLE":
            continue
        t = by_type.setdefault(row["type"], [0, 0.0])
        t[0] += int(row["occurrences"])
        t[1] += float(row["total_self_time"])
    json.dump(by_type, sys.stdout)


main()
