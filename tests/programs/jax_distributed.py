"""Two JAX processes of one job on this host: `jax_distributed.py` starts both (process ids 0
and 1, a coordinator on 127.0.0.1) and waits for them; each initialises jax.distributed with
its id as an argument (no launcher variable names it) and runs a small jitted computation.
Run it inside a network namespace: JAX's coordinator service listens on every interface."""
import os
import socket
import subprocess
import sys


def child(port, pid):
    import jax
    import jax.numpy as jnp

    jax.distributed.initialize(coordinator_address="127.0.0.1:%d" % port, num_processes=2,
                               process_id=pid)
    x = jax.jit(lambda a: (a @ a).sum())(jnp.ones((64, 64)))
    # One write per line: the two processes share the pipe, and print() writes a line in pieces.
    os.write(1, ("process %d of %d %s\n" % (jax.process_index(), jax.process_count(),
                                           float(x))).encode())
    jax.distributed.shutdown()


def main():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = [subprocess.Popen([sys.executable, __file__, str(port), str(i)]) for i in range(2)]
    sys.exit(max(p.wait() for p in procs))


if __name__ == "__main__":
    if len(sys.argv) == 3:
        child(int(sys.argv[1]), int(sys.argv[2]))
    else:
        main()
