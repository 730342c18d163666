"""A PyTorch loop whose model has two parts that differ in cost by a known factor: small_part
multiplies by a 512x512 matrix, big_part by a 512x2048 one (tensortrace's code view test; each
matmul lasts several sampling periods, so that the sampler sees it even on a busy machine,
where its looks come late). It
prints the time spent in each part's forward call ("small_ns N", "big_ns N"), the test's ground
truth."""
import time

import torch

torch.manual_seed(0)
torch.set_num_threads(1)
w_small = torch.randn(512, 512, requires_grad=True)
w_big = torch.randn(512, 2048, requires_grad=True)
opt = torch.optim.SGD([w_small, w_big], lr=0.01)
x = torch.randn(2048, 512)


def small_part(x):
    return torch.relu(x @ w_small)


def big_part(x):
    return torch.relu(x @ w_big)


spent = {"small": 0, "big": 0}


def timed(part, fn, x):
    t0 = time.perf_counter_ns()
    y = fn(x)
    spent[part] += time.perf_counter_ns() - t0
    return y


for _ in range(8):
    opt.zero_grad()
    loss = timed("small", small_part, x).mean() + timed("big", big_part, x).mean()
    loss.backward()
    opt.step()
print("small_ns", spent["small"])
print("big_ns", spent["big"])
