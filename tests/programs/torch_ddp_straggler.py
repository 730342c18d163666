"""DDP with gloo on RANKS ranks of one host (default 4), one of them a straggler: the last rank
sleeps SLEEP_MS ms (default 0: none) in each step before its forward pass, inside a
record_function range "straggler_sleep". Arguments: STEPS (default 30), SLEEP_MS, RANKS, and
MODE: `every` (default) or `alternate`: the sleep in the even steps only (from 0), so that the
steps with it and without it run under the same load of the machine; and RANGE: `range` (default)
or `bare`: a plain time.sleep with no range around it (only the Python sampler sees it). One
thread per rank; no profiler call. Started without RANK, it is its own launcher, as torchrun would
be (MASTER_PORT: TT_DDP_PORT, else 29545), and exits with the first failing rank's status.
Rank 0 prints `steps N`."""
import os
import subprocess
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 30
SLEEP_MS = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
RANKS = int(sys.argv[3]) if len(sys.argv) > 3 else 4
MODE = sys.argv[4] if len(sys.argv) > 4 else "every"
BARE = len(sys.argv) > 5 and sys.argv[5] == "bare"


def main():
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(rank)
    model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.001)
    for step in range(STEPS):
        x = torch.randn(64, 256)
        if SLEEP_MS and rank == world - 1 and (MODE == "every" or step % 2 == 0):
            if BARE:
                time.sleep(SLEEP_MS / 1000)  # the straggler's bare sleep
            else:
                with torch.autograd.profiler.record_function("straggler_sleep"):
                    time.sleep(SLEEP_MS / 1000)
        opt.zero_grad()
        ddp(x).sum().backward()
        opt.step()
    dist.barrier()
    if rank == 0:
        print("steps", STEPS)
    dist.destroy_process_group()


def launch():
    env = dict(os.environ, WORLD_SIZE=str(RANKS), MASTER_ADDR="127.0.0.1",
               MASTER_PORT=os.environ.get("TT_DDP_PORT", "29545"))
    ranks = [subprocess.Popen([sys.executable, __file__] + sys.argv[1:],
                              env=dict(env, RANK=str(r), LOCAL_RANK=str(r)))
             for r in range(RANKS)]
    codes = [p.wait() for p in ranks]
    sys.exit(next((c for c in codes if c), 0))


if __name__ == "__main__":
    main() if "RANK" in os.environ else launch()
