"""Process groups on gloo, 4 ranks started with torch.multiprocessing.spawn (as its docs show):
every rank runs all-reduces on the world and on its pair's subgroup ([0, 1] or [2, 3]) in turn,
then a barrier; rank 0 prints `world N`, `pair N`. TT_PORT sets the rendezvous port.

With TT_SUBGROUP_STEPS=N, N training steps instead of 5 bare rounds: each zeroes a linear
model's gradients, runs its forward and backward, all-reduces the gradient on the world and a
scalar on the pair, takes an SGD step and sleeps TT_SUBGROUP_SLEEP_S (default 0.03 s), so that
a run of a few seconds spans several of the profiler's windows (TENSORTRACE_RANK_WINDOW_S)."""
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

STEPS = int(os.environ.get("TT_SUBGROUP_STEPS", "0"))
ROUNDS = STEPS or 5
SLEEP_S = float(os.environ.get("TT_SUBGROUP_SLEEP_S", "0.03"))


def train(pair):
    model = torch.nn.Linear(256, 256)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 256)
    for _ in range(ROUNDS):
        opt.zero_grad()
        model(x).square().mean().backward()
        dist.all_reduce(model.weight.grad)
        dist.all_reduce(torch.ones(256), group=pair)
        opt.step()
        time.sleep(SLEEP_S)


def run(rank, world):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("TT_PORT", "29612"))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    low, high = dist.new_group([0, 1]), dist.new_group([2, 3])
    pair = low if rank < 2 else high
    if STEPS:
        train(pair)
    else:
        for _ in range(ROUNDS):
            dist.all_reduce(torch.ones(1024))
            dist.all_reduce(torch.ones(256), group=pair)
    dist.barrier()
    if rank == 0:
        print("world", ROUNDS)
        print("pair", ROUNDS)
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(run, args=(4,), nprocs=4)
