"""FSDP on gloo, two ranks started with torch.multiprocessing.spawn, as PyTorch's "Getting
Started with Fully Sharded Data Parallel (FSDP2)" tutorial shards a model: fully_shard on each
block, then on the root, a plain loop (forward, backward, optimizer.step, zero_grad). CPU
tensors on gloo, 127.0.0.1. Synthetic data. Each rank prints one JSON line with its rank and
its own step times."""
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.distributed.fsdp import fully_shard

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 12
WORLD = 2


def worker(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Sequential(nn.Linear(256, 256), nn.ReLU()) for _ in range(4)],
                          nn.Linear(256, 8))
    for block in model[:4]:
        fully_shard(block)
    fully_shard(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(64, 256), torch.randn(64, 8)
    times = []
    for _ in range(STEPS):
        t0 = time.perf_counter()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        opt.zero_grad()
        times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"program": "torch_fsdp_gloo", "rank": rank, "step_ms": times}), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 29541
    mp.spawn(worker, args=(WORLD, port), nprocs=WORLD, join=True)
