"""A plain PyTorch training loop (no profiler call, no step marker) over an MLP with Adam, on
synthetic data sliced from one tensor (no per-sample Python), on the CPU with one thread, its
batch size an argument. For tests/analysis/replay/whatif_batch_test.cc: `replay --what-if
batch=2` on a recording at batch B against the same loop run at batch 2B. Adam's updates of
the parameters (about half the step at batch 32) do not grow with the batch; the layers'
matrix products do. With "alternate", the even steps take BATCH samples and the odd ones
twice as many, so that both see the same load on the machine. Prints "steps N batch B".

usage: torch_batch_loop.py [BATCH] [STEPS] [alternate]   (defaults 32, 30)"""
import sys

import torch
import torch.nn as nn

BATCH = int(sys.argv[1]) if len(sys.argv) > 1 else 32
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 30
ALTERNATE = sys.argv[3:4] == ["alternate"]
DIM, HIDDEN = 256, 1024

torch.manual_seed(0)
torch.set_num_threads(1)
model = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                      nn.Linear(HIDDEN, DIM), nn.ReLU(), nn.Linear(DIM, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
data, labels = torch.randn(2 * STEPS * BATCH, DIM), torch.randint(0, 10, (2 * STEPS * BATCH,))
first = 0
for i in range(STEPS):
    n = 2 * BATCH if ALTERNATE and i % 2 else BATCH
    x, y = data[first:first + n], labels[first:first + n]
    first += n
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
print("steps", STEPS, "batch", BATCH)
