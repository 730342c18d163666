"""Steps whose work runs on two native threads (no Python thread state), one spinning and one
sleeping (tests/programs/cpu_threads_lib.cc), while the Python thread waits in the call: what
the native sampler's CPU reads of every thread (python.cpu) give replay's CPU sharing.

usage: cpu_threads.py LIB [STEPS] [MS]
"""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 12
ms = int(sys.argv[3]) if len(sys.argv) > 3 else 30
lib.cpu_threads_run(steps, ms, 120)
