"""A plain PyTorch training loop (no profiler call, no step marker) over an MLP whose blocks
end in dropout, as GPT-2's do (Linear, GELU, Dropout), on synthetic data, on the CPU: the
ops a user names (aten::dropout, aten::mm) run nested inside others (aten::linear,
autograd's backward ops). For tests/analysis/replay/whatif_nested_test.cc: the what-if
`aten::dropout=0` against the same loop with its dropout layers gone (TT_NO_DROPOUT=1, each
nn.Dropout an nn.Identity), and `scope:Sequential_0/=0.5` against the loop whose first block
is half as wide inside (TT_HALF_BLOCK=1: 2*DIM hidden features for 4*DIM, so its products and
its GELU do half the work while every tensor between blocks keeps its shape). Prints "steps N".

usage: torch_dropout_loop.py [STEPS]   (default 30)"""
import os
import sys

import torch
import torch.nn as nn

STEPS, BATCH, DIM = int(sys.argv[1]) if len(sys.argv) > 1 else 30, 64, 256
DROP = os.environ.get("TT_NO_DROPOUT") != "1"


def block(hidden=4 * DIM):
    return nn.Sequential(nn.Linear(DIM, hidden), nn.GELU(), nn.Linear(hidden, DIM),
                         nn.Dropout(0.1) if DROP else nn.Identity())


torch.manual_seed(0)
torch.set_num_threads(1)
first = block(2 * DIM) if os.environ.get("TT_HALF_BLOCK") == "1" else block()
model = nn.Sequential(first, *[block() for _ in range(3)], nn.Linear(DIM, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x, y = torch.randn(BATCH, DIM), torch.randn(BATCH, 1)
for _ in range(STEPS):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
print("steps", STEPS)
