"""A PyTorch MLP training loop on the CPU (one thread, synthetic data), in FP32 or, with
"bf16", with its forward pass under torch.autocast(device_type="cpu", dtype=torch.bfloat16)
(its matrix products in BF16: oneDNN's AVX-512 BF16 or AMX kernels where the CPU has them).
For tests/analysis/replay/whatif_roofline_test.cc: `replay --what-if precision=bf16:F` on the
FP32 recording against the BF16 run, and the FLOPs and roofline both give. Prints "steps N
precision P".

usage: torch_mlp_precision.py [fp32|bf16] [STEPS]   (defaults fp32, 12)"""
import contextlib
import sys

import torch
import torch.nn as nn

PRECISION = sys.argv[1] if len(sys.argv) > 1 else "fp32"
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 12
BATCH, DIM, HIDDEN = 64, 512, 1024

torch.manual_seed(0)
torch.set_num_threads(1)
model = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                      nn.Linear(HIDDEN, 10))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
data, labels = torch.randn(BATCH, DIM), torch.randint(0, 10, (BATCH,))


def autocast():
    if PRECISION == "bf16":
        return torch.autocast(device_type="cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


for _ in range(STEPS):
    opt.zero_grad()
    with autocast():
        out = model(data)
    loss = nn.functional.cross_entropy(out.float(), labels)
    loss.backward()
    opt.step()
print("steps", STEPS, "precision", PRECISION)
