"""A program with its own Python profile hook (sys.setprofile), set before it imports torch:
the hook must keep seeing the program's calls under tensortrace (whose sampler installs no hook,
and whose --python-tracer yields). Prints "hook_calls N" for the calls seen after the import."""
import sys

calls = {"n": 0}


def hook(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "work":
        calls["n"] += 1


sys.setprofile(hook)
import torch  # noqa: E402


def work(x):
    return torch.relu(x @ x)


x = torch.randn(64, 64)
for _ in range(25):
    work(x)
sys.setprofile(None)
print("hook_calls", calls["n"])
