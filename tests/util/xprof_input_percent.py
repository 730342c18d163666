"""Prints the share of step time xprof's overview page says the program waits for input (its
"input_conclusion": "... because 68.1% of the total step time sampled is waiting for input"), as
a number, for the XSpace files under LOGDIR/plugins/profile/*/. The reference
tf_workloads_test compares tensortrace's step view with.

usage: python3 xprof_input_percent.py LOGDIR   (exit 3 when xprof cannot be imported)
"""
import glob
import json
import os
import re
import sys

try:
    from xprof.convert import raw_to_tool_data
except ImportError as e:  # the test skips on this
    print("cannot import xprof: %s" % e, file=sys.stderr)
    sys.exit(3)


def main():
    files = glob.glob(os.path.join(sys.argv[1], "plugins", "profile", "*", "*.xplane.pb"))
    data, _ = raw_to_tool_data.xspace_to_tool_data(files, "overview_page", {})
    for table in json.loads(data if isinstance(data, str) else data.decode("utf-8")):
        text = table.get("p", {}).get("input_conclusion", "") if isinstance(table, dict) else ""
        m = re.search(r"([0-9.]+)% of the total step time", text)
        if m:
            print(m.group(1))
            return
    raise SystemExit("xprof's overview gave no input conclusion with a percentage")


main()
