"""A small PyTorch CNN trained on synthetic data, for bench/torch_overhead.py: prints one JSON
line {"steps_ms": [...], "cpu_ms": [...]} (per-step wall and process CPU times).

TT_BENCH_TORCHPROF=1: the program runs torch.profiler itself around the loop, with the
activities tensortrace's bootstrap asks Kineto for (CPU, shapes, memory), and saves its trace."""
import json
import os
import time

import torch
import torch.nn as nn

STEPS = int(os.environ.get("TT_BENCH_STEPS", "30"))
BATCH = int(os.environ.get("TT_BENCH_BATCH", "32"))
THREADS = int(os.environ.get("TT_BENCH_THREADS", "1"))


def main():
    torch.manual_seed(0)
    torch.set_num_threads(THREADS)
    model = nn.Sequential(nn.Conv2d(1, 16, 3), nn.ReLU(), nn.Conv2d(16, 16, 3), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 12 * 12, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(BATCH, 1, 28, 28)
    y = torch.randint(0, 10, (BATCH,))
    prof = None
    if os.environ.get("TT_BENCH_TORCHPROF") == "1":
        from torch.profiler import ProfilerActivity, profile

        prof = profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True)
        prof.__enter__()
    wall, cpu = [], []
    for _ in range(STEPS):
        t0, c0 = time.perf_counter(), time.process_time()
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        wall.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    if prof is not None:
        prof.__exit__(None, None, None)
        prof.profiler.kineto_results.save(os.environ.get("TT_BENCH_OUT", "/dev/null"))
    print(json.dumps({"steps_ms": wall, "cpu_ms": cpu}))


if __name__ == "__main__":
    main()
