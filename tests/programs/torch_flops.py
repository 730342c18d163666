"""A small PyTorch training loop whose ops torch.profiler counts FLOPs for: Conv2d, Linear
(addmm, and mm in their backward), bmm and baddbmm, on synthetic inputs. With
TT_TORCH_FLOPS_REFERENCE=FILE it runs the same loop under torch.profiler(record_shapes=True,
with_flops=True) and writes key_averages' flops and calls per op there (tests/e2e/
torch_flops_test.cc compares them with the trace's float_ops)."""
import json
import os

import torch
import torch.nn.functional as F
from torch import nn

STEPS = 3

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten(),
                      nn.Linear(8 * 8 * 8, 32), nn.ReLU(), nn.Linear(32, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(16, 3, 16, 16)
y = torch.randint(0, 10, (16,))
q, k, bias = torch.randn(4, 6, 5), torch.randn(4, 5, 7), torch.randn(4, 6, 7)


def step():
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    torch.bmm(q, k)
    torch.baddbmm(bias, q, k)


# The trainable parameters, as the scope view should count them per nn.Module.
print("params %d" % sum(p.numel() for p in model.parameters() if p.requires_grad))
print("params_linear_3 %d" % sum(p.numel() for p in model[3].parameters()))
reference = os.environ.get("TT_TORCH_FLOPS_REFERENCE")
if reference:
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                record_shapes=True, with_flops=True) as prof:
        for _ in range(STEPS):
            step()
    with open(reference, "w") as f:
        json.dump({e.key: {"flops": e.flops, "count": e.count}
                   for e in prof.key_averages() if e.flops}, f)
else:
    for _ in range(STEPS):
        step()
