"""DistributedDataParallel with gloo on 2 ranks of one host; no profiler call. Started without
RANK in its environment, it is its own launcher: it starts itself twice with RANK, LOCAL_RANK,
WORLD_SIZE, MASTER_ADDR=127.0.0.1 and MASTER_PORT set, as torchrun would, and exits with the
first failing rank's status. Rank 0 prints `steps N` and `grad_bytes B` (the bytes DDP
all-reduces per step)."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn

from two_ranks import launch

STEPS = 4


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(rank)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 4))
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for _ in range(STEPS):
        x = torch.randn(16, 64)
        opt.zero_grad()
        ddp(x).sum().backward()
        opt.step()
    dist.barrier()
    if rank == 0:
        print("steps", STEPS)
        print("grad_bytes", sum(p.numel() * p.element_size() for p in model.parameters()))
    dist.destroy_process_group()


if __name__ == "__main__":
    main() if "RANK" in os.environ else launch(__file__, "29533")
