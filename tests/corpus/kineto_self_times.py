"""torch.profiler's own answer for a recorded run: the Kineto trace-event JSON that PyTorch's
profiler wrote in that run (kept in the trace at xspace/<pid>/torch/*.pt.trace.json), folded as
torch.profiler's key_averages() folds it: per op name, calls and self CPU time (an event's
duration less its direct children's on the same thread). Used by tests/e2e/corpus_ecosystem_test.cc.
The dispatcher's Python keys are folded into the op they dispatch for (DISPATCH below).
Also each name's calls as key_averages counts them: a call that is the only child of a call
of its own name (an op redispatching to its own overload, aten::mul(Tensor, Scalar) to
aten::mul(Tensor, Tensor)) is merged into it, as EventList._remove_dup_nodes does in
torch/autograd/profiler_util.py; the JSON holds both events.
Usage: kineto_self_times.py TRACE_DIR; prints {name: [events, self_us, key_averages_calls]}."""
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
        stack, done = [], []  # [end, event, children's time, direct parent, direct children]
        for e in evs:
            ts, dur = float(e["ts"]), float(e.get("dur", 0))
            while stack and stack[-1][0] <= ts:
                done.append(stack.pop())
            # The child's time is its nearest parent's, through the dispatcher's keys.
            for parent in reversed(stack):
                if e["name"] not in DISPATCH and parent[1]["name"] not in DISPATCH:
                    parent[2] += dur
                    break
            if stack:
                stack[-1][4] += 1
            stack.append([ts + dur, e, 0.0, stack[-1] if stack else None, 0])
        done.extend(reversed(stack))
        for entry in done:
            close(entry, out)
    return out


def close(entry, out):
    end, e, children, parent, _ = entry
    if e["name"] in DISPATCH:
        return
    row = out[e["name"]]
    row[0] += 1
    row[1] += float(e.get("dur", 0)) - children
    row[2] += not (parent and parent[1]["name"] == e["name"] and parent[4] == 1)


def main():
    total = defaultdict(lambda: [0, 0.0, 0])
    for path in glob.glob(sys.argv[1] + "/xspace/*/torch/*.pt.trace.json"):
        with open(path) as f:
            for name, row in self_times(json.load(f)["traceEvents"]).items():
                total[name] = [a + b for a, b in zip(total[name], row)]
    print(json.dumps(total))


if __name__ == "__main__":
    main()
