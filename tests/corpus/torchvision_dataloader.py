"""A torchvision model trained from a DataLoader with two worker processes, as PyTorch's
"Training a Classifier" tutorial writes it: torchvision.models.resnet18 (10 classes, small
32x32 images), a Dataset whose samples go through torchvision.transforms.v2, DataLoader(
num_workers=2), a plain loop (zero_grad, forward, backward, optimizer.step). Synthetic data.
Prints one JSON line: each step's time from the loop's own clock (from one batch's arrival to
the next's, so the wait for the workers is in the step that waited)."""
import json
import sys
import time

import torch
import torch.nn as nn
import torchvision
from torchvision.transforms import v2

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
BATCH = 16


class Images(torch.utils.data.Dataset):
    def __init__(self, n):
        self.n = n
        self.transform = v2.Compose([v2.RandomHorizontalFlip(),
                                     v2.Normalize(mean=[0.5] * 3, std=[0.25] * 3)])

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return self.transform(torch.rand(3, 32, 32, generator=g)), i % 10


def main():
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = torch.utils.data.DataLoader(Images(STEPS * BATCH), batch_size=BATCH,
                                         num_workers=2)
    marks = [time.perf_counter()]
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        marks.append(time.perf_counter())
    times = [(b - a) * 1e3 for a, b in zip(marks, marks[1:])]
    print(json.dumps({"program": "torchvision_dataloader", "steps": len(times),
                      "step_ms": times}))


if __name__ == "__main__":
    main()
