"""torch.profiler's own answers for a test program (tests/e2e/torch_test.cc): with
TT_TORCH_REFERENCE=PATH the program's work runs inside torch.profiler with the activities
tensortrace's bootstrap asks Kineto for (CPU, shapes, memory; started where the bootstrap starts
it, right after `import torch`), and PATH receives op calls per name, the peak of its memory
events' total allocated bytes (torch's own total: the shared-memory batches of DataLoader
workers keep theirs apart), the forward ops linked to their backward node (its "fwdbwd" flows
that have both ends), each op's input shapes as key_averages(group_by_input_shape=True) groups
them ("[64,256], [256,1024]": the inputs that have a shape) and the steps the work returned."""
import json
import os


def run(work):
    """Runs work() (which returns (steps, weight_bytes)), under torch.profiler when asked."""
    path = os.environ.get("TT_TORCH_REFERENCE")
    if not path:
        return work()
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                 profile_memory=True) as prof:
        steps, weights = work()
    trace = path + ".pt.trace.json"
    prof.export_chrome_trace(trace)
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    peak = max((e["args"]["Total Allocated"] for e in events if e.get("name") == "[memory]"),
               default=0)
    ends = {}
    for e in events:
        if e.get("cat") == "fwdbwd" and e.get("ph") in ("s", "f"):
            ends.setdefault(e["id"], set()).add(e["ph"])
    fwdbwd = sum(1 for v in ends.values() if v == {"s", "f"})
    ops = {}
    for e in prof.events():
        ops[e.name] = ops.get(e.name, 0) + 1
    shapes = {}
    for e in prof.key_averages(group_by_input_shape=True):
        text = ", ".join("[" + ",".join(str(n) for n in d) + "]" for d in e.input_shapes
                         if isinstance(d, list) and d and all(isinstance(n, int) for n in d))
        shapes.setdefault(e.key, []).append(text)
    with open(path, "w") as f:
        json.dump({"ops": ops, "peak": peak, "fwdbwd": fwdbwd, "steps": steps, "shapes": shapes},
                  f)
    return steps, weights


def report(steps, weights):
    print("steps", steps)
    print("weight_bytes", weights, flush=True)
