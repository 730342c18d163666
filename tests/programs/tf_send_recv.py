"""A tf.function whose ops run on two TensorFlow workers of one cluster on one host (CPU, gRPC on
127.0.0.1: run it inside a network namespace, TensorFlow's server binds all interfaces). Started
without TT_SR_TASK, it is its own launcher: it starts itself twice, as task 0 (the client: it
connects to the cluster and runs the function) and task 1 (a server that runs what the function
placed on it), and exits with the first failing worker's status; started with TT_SR_TASK, it is
that task (task 1 then runs until its standard input ends, or with TT_SR_DONE=FILE until task 0
wrote FILE at its end). No profiler calls.

Each step moves one tensor from task 1 to task 0 (float32 [256, 1024], 1 MiB: TensorFlow's
_Send on task 1, _Recv on task 0, the bytes fetched by task 0 over gRPC with RecvTensor) and one
from task 0 to task 1 (float32 [64, 1024], 256 KiB). Task 0 prints `steps N`, `bytes_1to0 B` and
`bytes_0to1 B`."""
import os
import socket
import subprocess
import sys
import time

STEPS = 4
BIG = (256, 1024)   # task 1 -> task 0
SMALL = (64, 1024)  # task 0 -> task 1


def cluster():
    import tensorflow as tf
    base = int(os.environ.get("TT_SR_PORT", "23476"))
    return tf.train.ClusterSpec({"worker": ["127.0.0.1:%d" % (base + i) for i in range(2)]})


def wait_for_server():
    port = int(os.environ.get("TT_SR_PORT", "23476")) + 1
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit("task 1's server never listened")


def client():
    import tensorflow as tf
    wait_for_server()
    tf.config.experimental_connect_to_cluster(cluster(), job_name="worker", task_index=0)
    t0, t1 = "/job:worker/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:1/device:CPU:0"
    with tf.device(t1):
        a = tf.Variable(tf.ones(BIG))
    with tf.device(t0):
        b = tf.Variable(tf.ones(SMALL))

    @tf.function
    def step():
        with tf.device(t1):
            big = a * 2.0                      # made on task 1
        with tf.device(t0):
            small = b * 3.0                    # made on task 0
            s = tf.reduce_sum(big)             # task 1's tensor, received on task 0
        with tf.device(t1):
            a.assign_add(tf.ones(BIG) * tf.reduce_mean(small) * 1e-3)  # task 0's, on task 1
        return s

    for _ in range(STEPS):
        step().numpy()
    print("steps", STEPS)
    print("bytes_1to0", BIG[0] * BIG[1] * 4)
    print("bytes_0to1", SMALL[0] * SMALL[1] * 4)
    sys.stdout.flush()
    if os.environ.get("TT_SR_DONE"):
        open(os.environ["TT_SR_DONE"], "w").close()


def server():
    import tensorflow as tf
    tf.distribute.Server(cluster(), job_name="worker", task_index=1, protocol="grpc", start=True)
    print("ready", flush=True)
    done = os.environ.get("TT_SR_DONE")
    if done:
        while not os.path.exists(done):
            time.sleep(0.1)
    else:
        sys.stdin.read()  # until the launcher closes it: task 0 is done


def launch():
    me = [sys.executable, __file__]
    srv = subprocess.Popen(me, env=dict(os.environ, TT_SR_TASK="1"), stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)
    srv.stdout.readline()  # "ready": its server listens
    cli = subprocess.Popen(me, env=dict(os.environ, TT_SR_TASK="0"))
    code = cli.wait()
    srv.stdin.close()
    codes = [code, srv.wait()]
    sys.exit(next((c for c in codes if c), 0))


if __name__ == "__main__":
    task = os.environ.get("TT_SR_TASK")
    if task is None:
        launch()
    elif task == "0":
        client()
    else:
        server()
