"""A two-stage pipeline trained with gloo on 2 ranks of one host; no profiler call. Rank 0 runs
the first stage and sends its activations to rank 1 (dist.send); rank 1 runs the second stage,
whose tanh layers are most of its time (TANH_REPEATS tanh calls on the activations), and sends
the activations' gradient back; each rank then steps its own optimizer, STEPS times. So rank 0
waits in every step for rank 1's stage. Started without RANK, it is its own launcher (as
torch_ddp.py). Rank 0 prints `steps N` and `activation_bytes B`."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn

from two_ranks import launch

STEPS, BATCH, WIDTH, TANH_REPEATS = 12, 64, 512, 40


def first_stage(model, opt):
    x = torch.randn(BATCH, WIDTH)
    opt.zero_grad()
    h = model(x)
    dist.send(h.detach(), dst=1)
    grad = torch.empty(BATCH, WIDTH)
    dist.recv(grad, src=1)
    h.backward(grad)
    opt.step()


def second_stage(model, opt):
    h = torch.empty(BATCH, WIDTH)
    dist.recv(h, src=0)
    h.requires_grad_()
    opt.zero_grad()
    y = model(h)
    for _ in range(TANH_REPEATS):
        y = torch.tanh(y)
    y.sum().backward()
    dist.send(h.grad, dst=0)
    opt.step()


def main():
    dist.init_process_group("gloo")
    torch.set_num_threads(1)
    rank = dist.get_rank()
    torch.manual_seed(rank)
    model = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.ReLU())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(STEPS):
        (first_stage if rank == 0 else second_stage)(model, opt)
    dist.barrier()
    if rank == 0:
        print("steps", STEPS)
        print("activation_bytes", BATCH * WIDTH * 4)
    dist.destroy_process_group()


if __name__ == "__main__":
    main() if "RANK" in os.environ else launch(__file__, "29537")
