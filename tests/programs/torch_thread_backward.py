"""A PyTorch MLP whose forward pass runs on the main thread and whose backward pass runs on a
worker thread (loss.backward() called there: autograd's engine runs a CPU backward pass on the
calling thread), so that the trace links ops of two threads only through autograd's sequence
numbers. Argument: STEPS (default 8). No profiler call; prints `steps N`."""
import queue
import sys
import threading

import torch
import torch.nn as nn

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 8


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    todo, done = queue.Queue(), queue.Queue()

    def backward_worker():
        while (loss := todo.get()) is not None:
            loss.backward()
            done.put(True)

    worker = threading.Thread(target=backward_worker)
    worker.start()
    for _ in range(STEPS):
        opt.zero_grad()
        loss = model(torch.randn(128, 256)).square().mean()
        todo.put(loss)
        done.get()
        opt.step()
    todo.put(None)
    worker.join()
    print("steps", STEPS)


if __name__ == "__main__":
    main()
