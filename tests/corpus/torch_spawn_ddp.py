"""DDP started with torch.multiprocessing.spawn, as PyTorch's "Getting Started with
Distributed Data Parallel" tutorial writes it: no launcher, each worker's rank given to
init_process_group; gloo on 127.0.0.1. Synthetic data. Each worker prints one JSON line with
its rank and its own step times."""
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
WORLD = 2


def worker(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 8)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 64), torch.randn(32, 8)
    times = []
    for _ in range(STEPS):
        t0 = time.perf_counter()
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"program": "torch_spawn_ddp", "rank": rank, "step_ms": times}), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 29533
    mp.spawn(worker, args=(WORLD, port), nprocs=WORLD, join=True)
