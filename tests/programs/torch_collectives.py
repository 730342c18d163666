"""Known collectives with gloo on 2 ranks of one host; no profiler call. Started without RANK in
its environment, it is its own launcher (as torch_ddp.py). Each rank runs ALLREDUCES all-reduces
of a float32 tensor, BROADCASTS broadcasts and ALLGATHERS all-gathers, then a barrier; rank 0
prints each collective's count and bytes (`allreduce 5`, `allreduce_bytes 4096`, `barrier 1`).
With TT_COMM_SLEEP_MS=N, rank TT_COMM_SLEEP_RANK (default 1) sleeps N ms before all-reduce number
TT_COMM_SLEEP_AT (from 0, default 2): it enters that all-reduce last; with TT_COMM_SLEEP_AT=every,
before each (a straggler). TT_COMM_ALLREDUCES sets their number (default 5). With
TT_COMM_KILL_AT=K, rank TT_COMM_SLEEP_RANK kills itself (SIGKILL) before all-reduce K, and the
others give up on it after TT_COMM_TIMEOUT_S seconds (gloo's timeout)."""
import datetime
import os
import signal
import time

import torch
import torch.distributed as dist

from two_ranks import launch

ALLREDUCES, BROADCASTS, ALLGATHERS = 5, 2, 3
NUMEL = {"allreduce": 1024, "broadcast": 256, "allgather": 128}


def main():
    timeout = float(os.environ.get("TT_COMM_TIMEOUT_S", "0"))
    if timeout:
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout))
    else:
        dist.init_process_group("gloo")
    rank = dist.get_rank()
    sleep_ms = int(os.environ.get("TT_COMM_SLEEP_MS", "0"))
    sleep_rank = int(os.environ.get("TT_COMM_SLEEP_RANK", "1"))
    sleep_at = os.environ.get("TT_COMM_SLEEP_AT", "2")
    for i in range(int(os.environ.get("TT_COMM_ALLREDUCES", ALLREDUCES))):
        if rank == sleep_rank and os.environ.get("TT_COMM_KILL_AT") == str(i):
            os.kill(os.getpid(), signal.SIGKILL)
        if sleep_ms and rank == sleep_rank and sleep_at in ("every", str(i)):
            time.sleep(sleep_ms / 1000)
        dist.all_reduce(torch.ones(NUMEL["allreduce"]))
    for _ in range(BROADCASTS):
        dist.broadcast(torch.ones(NUMEL["broadcast"]), src=0)
    for _ in range(ALLGATHERS):
        out = [torch.empty(NUMEL["allgather"]) for _ in range(dist.get_world_size())]
        dist.all_gather(out, torch.ones(NUMEL["allgather"]))
    dist.barrier()
    if rank == 0:
        allreduces = int(os.environ.get("TT_COMM_ALLREDUCES", ALLREDUCES))
        for name, n in (("allreduce", allreduces), ("broadcast", BROADCASTS),
                        ("allgather", ALLGATHERS)):
            print(name, n)
            print(name + "_bytes", NUMEL[name] * 4)
        print("barrier", 1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main() if "RANK" in os.environ else launch(__file__, "29534")
