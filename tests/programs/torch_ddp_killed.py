"""DistributedDataParallel with gloo on 2 ranks of one host, a step every TT_STEP_MS (default 50)
ms; no profiler call. Rank 1 kills itself (SIGKILL) at the start of the first step after
TT_KILL_AFTER_S seconds of steps (default 5) and prints `killed at step N` first (flushed); rank
0 gives up on it after gloo's timeout (TT_COMM_TIMEOUT_S, default 3). Without TT_KILL_AFTER_S
set to 0 both ranks run TT_STEPS steps (default 40) and rank 0 prints `steps N`. Started
without RANK in its environment, it is its own launcher (two_ranks.py)."""
import datetime
import os
import signal
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn

from two_ranks import launch


def main():
    timeout = float(os.environ.get("TT_COMM_TIMEOUT_S", "3"))
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout))
    rank = dist.get_rank()
    torch.manual_seed(rank)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 4))
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    kill_after = float(os.environ.get("TT_KILL_AFTER_S", "5"))
    step_s = float(os.environ.get("TT_STEP_MS", "50")) / 1000
    steps = int(os.environ.get("TT_STEPS", "40"))
    start = time.monotonic()
    step = 0
    while kill_after or step < steps:
        if kill_after and rank == 1 and time.monotonic() - start >= kill_after:
            print("killed at step", step, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        x = torch.randn(16, 64)
        opt.zero_grad()
        ddp(x).sum().backward()
        opt.step()
        time.sleep(step_s)
        step += 1
    if rank == 0:
        print("steps", step)
    dist.destroy_process_group()
    sys.exit(0)


if __name__ == "__main__":
    main() if "RANK" in os.environ else launch(__file__, "29548")
