"""Point-to-point transfers with gloo on 2 ranks of one host, as a two-stage pipeline passes
activations forward and gradients back; no profiler call. Started without RANK in its
environment, it is its own launcher (as torch_ddp.py). Rank 0 sends SENDS tensors of 1024 floats
to rank 1 (dist.send), sleeping SLEEP_MS before send number 1 (from 0), so that rank 1's receive
waits for it; rank 1 sends BACKS tensors of 256 floats back (dist.isend, then wait()). Rank 0
prints `sends 3`, `send_bytes 4096`, `backs 2`, `back_bytes 1024`, `sleep_ms 20`."""
import os
import time

import torch
import torch.distributed as dist

from two_ranks import launch

SENDS, BACKS, SLEEP_MS = 3, 2, 20
NUMEL = {"send": 1024, "back": 256}


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    for i in range(SENDS):
        if rank == 0:
            if i == 1:
                time.sleep(SLEEP_MS / 1000)
            dist.send(torch.ones(NUMEL["send"]), dst=1)
        else:
            dist.recv(torch.empty(NUMEL["send"]), src=0)
    for _ in range(BACKS):
        if rank == 1:
            dist.isend(torch.ones(NUMEL["back"]), dst=0).wait()
        else:
            dist.recv(torch.empty(NUMEL["back"]), src=1)
    dist.barrier()
    if rank == 0:
        print("sends", SENDS)
        print("send_bytes", NUMEL["send"] * 4)
        print("backs", BACKS)
        print("back_bytes", NUMEL["back"] * 4)
        print("sleep_ms", SLEEP_MS)
    dist.destroy_process_group()


if __name__ == "__main__":
    main() if "RANK" in os.environ else launch(__file__, "29536")
