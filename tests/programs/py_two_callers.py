"""Two functions, `first` and `second`, each calling the same `wait` (a 20 ms sleep), called in
turn: at each look the sampler sees `wait` at the same depth, the same address and the same
instruction, and only the caller differs. Prints "calls N". No profiler calls.

usage: py_two_callers.py [ROUNDS]   (default 10)"""
import sys
import time

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 10


def wait():
    time.sleep(0.02)


def first():
    wait()


def second():
    wait()


for _ in range(ROUNDS):
    first()
    second()
print("calls", 2 * ROUNDS)
