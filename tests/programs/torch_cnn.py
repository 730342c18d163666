"""A PyTorch CNN trained on synthetic data by a plain loop with DataLoader worker processes:
no profiler call, no step marker. Prints `steps N` and `weight_bytes B`.

With TT_TORCH_REFERENCE=PATH the whole program runs inside torch.profiler (CPU activities,
shapes, memory: what tensortrace's bootstrap asks Kineto for, started right after `import torch`
as the bootstrap starts it) and PATH receives torch's own answers: op calls per name, the peak
of its memory events' total allocated bytes, and the steps. With TT_TORCH_CRASH_AT=K the loop
raises an uncaught RuntimeError in step K, after its forward pass."""
import json
import os
import sys

import torch
import torch.nn as nn

STEPS = int(os.environ.get("TT_TORCH_STEPS", "6"))
BATCH = 8


class Synthetic(torch.utils.data.Dataset):
    def __len__(self):
        return STEPS * BATCH

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(1, 28, 28, generator=g), i % 10


def train():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    model = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(8 * 13 * 13, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(Synthetic(), batch_size=BATCH, num_workers=2)
    steps = 0
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        if steps == int(os.environ.get("TT_TORCH_CRASH_AT", "-1")):
            raise RuntimeError("crash in step %d, as asked" % steps)
        loss.backward()
        opt.step()
        steps += 1
    return steps, sum(p.numel() * p.element_size() for p in model.parameters())


def reference(path):
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                 profile_memory=True) as prof:
        steps, weights = train()
    trace = path + ".pt.trace.json"
    prof.export_chrome_trace(trace)
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    # Torch's own total: its shared-memory events (batches from the workers) keep theirs apart.
    peak = max((e["args"]["Total Allocated"] for e in events if e.get("name") == "[memory]"),
               default=0)
    ops = {}
    for e in prof.events():
        ops[e.name] = ops.get(e.name, 0) + 1
    with open(path, "w") as f:
        json.dump({"ops": ops, "peak": peak, "steps": steps}, f)
    return steps, weights


def main():
    ref = os.environ.get("TT_TORCH_REFERENCE")
    steps, weights = reference(ref) if ref else train()
    print("steps", steps)
    print("weight_bytes", weights)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
