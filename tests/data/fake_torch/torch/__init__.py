"""A stand-in for torch whose profiler cannot start (tests/e2e/torch_test.cc): what tensortrace's
bootstrap meets with a torch built without Kineto."""
__version__ = "0.0-fake"

from torch import autograd  # noqa: E402,F401
