"""DDP with gloo on 2 ranks of one host at two gradient bucket sizes, side by side (docs/replay.md,
check (b)). Arguments: STEPS (default 20) and MODE: `alternate` (default) trains two copies of
one MLP (8 layers of 512x512: 8 MiB of gradients) in turn, the even steps the copy wrapped with
bucket_cap_mb=25 (one all-reduce per step), the odd steps the copy with bucket_cap_mb=1 (one per
layer), so that both bucket sizes run under the same load of the machine; a number N trains one
copy with bucket_cap_mb=N. One thread per rank; no profiler call. Started without RANK, it is
its own launcher (as torch_ddp.py). Rank 0 prints `steps N` and `grad_bytes B` (per copy)."""
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn

from two_ranks import launch

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
MODE = sys.argv[2] if len(sys.argv) > 2 else "alternate"


def mlp():
    layers = []
    for _ in range(8):
        layers += [nn.Linear(512, 512), nn.ReLU()]
    return nn.Sequential(*layers)


def main():
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(rank)
    caps = [25, 1] if MODE == "alternate" else [float(MODE)]
    models = [mlp() for _ in caps]
    ddps = [nn.parallel.DistributedDataParallel(m, bucket_cap_mb=c) for m, c in zip(models, caps)]
    opts = [torch.optim.SGD(d.parameters(), lr=0.001) for d in ddps]
    for step in range(STEPS):
        k = step % len(caps)
        x = torch.randn(64, 512)
        opts[k].zero_grad()
        ddps[k](x).sum().backward()
        opts[k].step()
    dist.barrier()
    if rank == 0:
        print("steps", STEPS)
        print("grad_bytes", sum(p.numel() * p.element_size() for p in models[0].parameters()))
    dist.destroy_process_group()


if __name__ == "__main__":
    main() if "RANK" in os.environ else launch(__file__, "29534")
