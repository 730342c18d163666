"""A small MLP compiled with torch.compile and trained by a plain loop on synthetic data: the
first step compiles (Dynamo and Inductor), the others run the compiled code. Prints `steps N`
and `weight_bytes B`."""
import torch
import torch.nn as nn

STEPS = 4


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
    compiled = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(STEPS):
        x, y = torch.randn(16, 32), torch.randn(16, 4)
        opt.zero_grad()
        nn.functional.mse_loss(compiled(x), y).backward()
        opt.step()
    print("steps", STEPS)
    print("weight_bytes", sum(p.numel() * p.element_size() for p in model.parameters()))


if __name__ == "__main__":
    main()
