"""Leaves a large PyTorch profile (Kineto's JSON) in its trace directory, as torch.profiler's
export_chrome_trace would: N aten::mm events on this thread and one instant, with
baseTimeNanoseconds written after the events (as Kineto writes it). Exits with status 3. Needs
no torch."""
import os
import sys
import threading
import time

n = int(sys.argv[1])
base = time.time_ns()
time.sleep(0.3)
d = os.path.join(os.environ["TENSORTRACE_DIR"], "xspace", str(os.getpid()), "torch")
os.makedirs(d, exist_ok=True)
pid, tid = os.getpid(), threading.get_native_id()
with open(os.path.join(d, "1.pt.trace.json"), "w") as f:
    f.write('{"schemaVersion": 1, "deviceProperties": [], "traceEvents": [\n')
    span = 250000.0  # us: every event within the process's life
    for i in range(n):
        f.write(
            '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": %d, "tid": %d, '
            '"ts": %.3f, "dur": %.3f, "args": {"External id": %d, "Input Dims": [[64, 64], '
            '[64, 64]]}},\n' % (pid, tid, 1000.0 + i * span / n, 0.5 * span / n, i))
    f.write('{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "checkpoint", "pid": %d, '
            '"tid": %d, "ts": %.3f},\n' % (pid, tid, 1000.0 + span / 2))  # an instant
    f.write('[1, 2], "not an event"\n')  # elements that are no events
    f.write('], "traceName": "big", "baseTimeNanoseconds": %d}\n' % base)
sys.exit(3)
