"""Process groups on gloo, 4 ranks started with torch.multiprocessing.spawn (as its docs show):
every rank runs all-reduces on the world and on its pair's subgroup ([0, 1] or [2, 3]) in turn,
then a barrier; rank 0 prints `world 5`, `pair 5`. TT_PORT sets the rendezvous port."""
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

ROUNDS = 5


def run(rank, world):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("TT_PORT", "29612"))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    low, high = dist.new_group([0, 1]), dist.new_group([2, 3])
    pair = low if rank < 2 else high
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
