"""Five steps named "train_step" through tensortrace's C API (ctypes); the first holds a
compilation range ("XlaCompile"), so it is a warm-up step. For tests/cli/options_test.cc.

usage: warmup_job.py LIBTENSORTRACE
"""
import ctypes
import sys
import time

lib = ctypes.CDLL(sys.argv[1])
for i in range(5):
    lib.tt_range_push(b"train_step")
    if i == 0:
        lib.tt_range_push(b"XlaCompile")
        time.sleep(0.002)
        lib.tt_range_pop()
    time.sleep(0.001)
    lib.tt_range_pop()
