"""A PyTorch CNN trained on synthetic data by a plain loop with DataLoader worker processes:
no profiler call, no step marker. Prints `steps N` and `weight_bytes B`. TT_TORCH_REFERENCE:
see torch_reference.py. With TT_TORCH_CRASH_AT=K the loop raises an uncaught RuntimeError in
step K, after its forward pass; with TT_TORCH_STEP_SLEEP=S each step also sleeps S seconds.
TT_TORCH_BATCH sets the batch size (default 8); TT_TORCH_GELU=1 adds a GELU after the ReLU (an
op the default program does not run). TT_SAY_STARTED=1 prints "started 1" after the first step.
TT_TORCH_FETCH_SLEEP=S makes the Dataset sleep S seconds per sample (in the DataLoader's workers)."""
import os
import time

import torch
import torch.nn as nn
import torch_reference

STEPS = int(os.environ.get("TT_TORCH_STEPS", "6"))
BATCH = int(os.environ.get("TT_TORCH_BATCH", "8"))
FETCH_SLEEP = float(os.environ.get("TT_TORCH_FETCH_SLEEP", "0"))


class Synthetic(torch.utils.data.Dataset):
    def __len__(self):
        return STEPS * BATCH

    def __getitem__(self, i):
        time.sleep(FETCH_SLEEP)
        g = torch.Generator().manual_seed(i)
        return torch.randn(1, 28, 28, generator=g), i % 10


def train():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    layers = [nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
              nn.Linear(8 * 13 * 13, 10)]
    if os.environ.get("TT_TORCH_GELU") == "1":
        layers.insert(2, nn.GELU())
    model = nn.Sequential(*layers)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(Synthetic(), batch_size=BATCH, num_workers=2)
    steps = 0
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        if steps == int(os.environ.get("TT_TORCH_CRASH_AT", "-1")):
            raise RuntimeError("crash in step %d, as asked" % steps)
        loss.backward()
        opt.step()
        time.sleep(float(os.environ.get("TT_TORCH_STEP_SLEEP", "0")))
        steps += 1
        if steps == 1 and os.environ.get("TT_SAY_STARTED"):
            print("started 1", flush=True)  # for a test that opens a capture window now
    return steps, sum(p.numel() * p.element_size() for p in model.parameters())


def main():
    torch_reference.report(*torch_reference.run(train))


if __name__ == "__main__":
    main()
