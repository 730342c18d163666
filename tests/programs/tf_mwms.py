"""A custom training loop under tf.distribute.MultiWorkerMirroredStrategy with 2 workers on one
host (CPU, gRPC on 127.0.0.1: run it inside a network namespace, TensorFlow's server binds all
interfaces). Started without TF_CONFIG, it is its own launcher: it starts itself twice with
TF_CONFIG naming both workers and its task index, and exits with the first failing worker's
status; started with TF_CONFIG, it is that worker. No profiler calls. Each step all-reduces each
gradient on its own (one CollectiveReduceV2 each). Worker 0 prints `allreduce N` (all-reduces per
worker), `grad_bytes B` (the gradients' bytes of one step, added), `grad0_bytes` and
`grad1_bytes`, and `variables V` (each broadcast from worker 0 when created). With
TT_MWMS_SLEEP_MS=N a worker sleeps N ms before its last step: it enters that step's all-reduces
last."""
import json
import os
import subprocess
import sys
import time

STEPS = 3


def main():
    import numpy as np
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(8, 16)).astype("float32"))
    y = tf.constant(rng.normal(size=(8, 1)).astype("float32"))
    with strategy.scope():
        w1 = tf.Variable(rng.normal(size=(16, 32)).astype("float32") * 0.1)
        w2 = tf.Variable(rng.normal(size=(32, 1)).astype("float32") * 0.1)
    weights = [w1, w2]

    def replica_step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2) - y))
        grads = tape.gradient(loss, weights)
        ctx = tf.distribute.get_replica_context()
        grads = [ctx.all_reduce("sum", g) for g in grads]
        for w, g in zip(weights, grads):
            w.assign_sub(0.01 * g)

    @tf.function
    def step():
        strategy.run(replica_step)

    sleep_ms = int(os.environ.get("TT_MWMS_SLEEP_MS", "0"))
    for i in range(STEPS):
        if sleep_ms and i == STEPS - 1:
            time.sleep(sleep_ms / 1000)
        step()
    # The last all-reduce's profiler event closes in its done callback, on TensorFlow's
    # collective thread, which may run after the step returned: give it that moment.
    time.sleep(0.5)
    if strategy.cluster_resolver.task_id == 0:
        print("allreduce", STEPS * len(weights))
        print("grad_bytes", sum(w.numpy().nbytes for w in weights))
        for i, w in enumerate(weights):
            print("grad%d_bytes" % i, w.numpy().nbytes)
        print("variables", len(weights))
        sys.stdout.flush()


def launch():
    base = int(os.environ.get("TT_MWMS_PORT", "23456"))
    workers = ["127.0.0.1:%d" % (base + i) for i in range(2)]
    procs = []
    for i in range(2):
        cfg = {"cluster": {"worker": workers}, "task": {"type": "worker", "index": i}}
        procs.append(subprocess.Popen([sys.executable, __file__],
                                      env=dict(os.environ, TF_CONFIG=json.dumps(cfg))))
    codes = [p.wait() for p in procs]
    sys.exit(next((c for c in codes if c), 0))


if __name__ == "__main__":
    main() if "TF_CONFIG" in os.environ else launch()
