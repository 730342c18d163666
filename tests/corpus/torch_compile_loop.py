"""torch.compile as PyTorch's "Introduction to torch.compile" tutorial uses it: a model
compiled with torch.compile(model), trained by a plain loop (zero_grad, forward, backward,
optimizer.step). The first step compiles (Dynamo, AOTAutograd, Inductor). Synthetic data.
Prints one JSON line with the program's own step times."""
import json
import sys
import time

import torch
import torch.nn as nn

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 30


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.GELU(), nn.Linear(512, 512), nn.GELU(),
                          nn.Linear(512, 10))
    compiled = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    xs, ys = torch.randn(STEPS, 128, 256), torch.randint(0, 10, (STEPS, 128))
    times = []
    for i in range(STEPS):
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = nn.functional.cross_entropy(compiled(xs[i]), ys[i])
        loss.backward()
        opt.step()
        times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"program": "torch_compile_loop", "steps": STEPS, "step_ms": times}))


if __name__ == "__main__":
    main()
