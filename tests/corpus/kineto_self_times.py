"""torch.profiler's own answer for a recorded run: the Kineto trace-event JSON that PyTorch's
profiler wrote in that run (kept in the trace at xspace/<pid>/torch/*.pt.trace.json), folded as
torch.profiler's key_averages() folds it: per op name, calls and self CPU time (an event's
duration less its direct children's on the same thread). Used by tests/e2e/corpus_ecosystem_test.cc.
The dispatcher's Python keys are folded into the op they dispatch for (DISPATCH below).
Also each name's outer calls: those not directly inside a call of the same name (an op that
redispatches to its own overload, aten::mul(Tensor, Scalar) to aten::mul(Tensor, Tensor), is
two calls to key_averages and one piece of work).
Usage: kineto_self_times.py TRACE_DIR; prints {name: [calls, self_us, outer_calls]}."""
import glob
import json
import sys
from collections import defaultdict

CATS = {"cpu_op", "user_annotation"}
# The dispatcher's Python keys (a tensor subclass's and a dispatch mode's __torch_dispatch__):
# key_averages lists them as rows; to tensortrace they are runtime, their self time the op's that
# they dispatch for (src/model/meaning.cc). Folded so: left out, their children the op's.
DISPATCH = {"PythonSubclass", "PythonDispatchMode"}


def self_times(events):
    by_thread = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in CATS:
            by_thread[(e.get("pid"), e.get("tid"))].append(e)
    out = defaultdict(lambda: [0, 0.0, 0])
    for evs in by_thread.values():
        evs.sort(key=lambda e: (float(e["ts"]), -float(e.get("dur", 0))))
        stack = []  # [end, event, children's time, outer]
        for e in evs:
            ts, dur = float(e["ts"]), float(e.get("dur", 0))
            while stack and stack[-1][0] <= ts:
                close(stack.pop(), out)
            # The child's time is its nearest parent's, through the dispatcher's keys.
            for parent in reversed(stack):
                if e["name"] not in DISPATCH and parent[1]["name"] not in DISPATCH:
                    parent[2] += dur
                    break
            outer = not stack or stack[-1][1]["name"] != e["name"]
            stack.append([ts + dur, e, 0.0, outer])
        while stack:
            close(stack.pop(), out)
    return out


def close(entry, out):
    end, e, children, outer = entry
    if e["name"] in DISPATCH:
        return
    row = out[e["name"]]
    row[0] += 1
    row[1] += float(e.get("dur", 0)) - children
    row[2] += outer


def main():
    total = defaultdict(lambda: [0, 0.0, 0])
    for path in glob.glob(sys.argv[1] + "/xspace/*/torch/*.pt.trace.json"):
        with open(path) as f:
            for name, row in self_times(json.load(f)["traceEvents"]).items():
                total[name] = [a + b for a, b in zip(total[name], row)]
    print(json.dumps(total))


if __name__ == "__main__":
    main()
