"""Two JAX processes of one job on this host, with cross-process collectives on CPU (gloo):
`jax_collectives.py` starts both (process ids 0 and 1 as arguments, a coordinator on
127.0.0.1) and waits for them. Each runs a jitted shard_map over the global mesh (one CPU
device per process) that all-reduces (psum) its shard ALLREDUCES times, then one that
all-gathers it ALLGATHERS times, and prints `process I allreduce N allgather M shard_bytes B
result R` (B: the bytes of its shard).
Run it inside a network namespace: JAX's coordinator service listens on every interface."""
import os
import socket
import subprocess
import sys

ALLREDUCES = 3
ALLGATHERS = 2


def child(port, pid):
    import jax

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    jax.distributed.initialize(coordinator_address="127.0.0.1:%d" % port, num_processes=2,
                               process_id=pid)
    shard_map = getattr(jax, "shard_map", None)
    if shard_map is None:
        from jax.experimental.shard_map import shard_map
    mesh = Mesh(np.array(jax.devices()), ("x",))
    local = jax.device_put(jnp.full((256,), pid + 1.0), jax.local_devices()[0])
    x = jax.make_array_from_single_device_arrays((512,), NamedSharding(mesh, P("x")), [local])
    reduce = jax.jit(shard_map(lambda a: jax.lax.psum(a, "x"), mesh=mesh, in_specs=P("x"),
                               out_specs=P()))
    gather = jax.jit(shard_map(lambda a: jax.lax.all_gather(a, "x", tiled=True), mesh=mesh,
                               in_specs=P("x"), out_specs=P("x")))
    for _ in range(ALLREDUCES):
        y = reduce(x)
        y.block_until_ready()
    for _ in range(ALLGATHERS):
        z = gather(x)
        z.block_until_ready()
    r = float(np.asarray(y.addressable_shards[0].data)[0])
    # One write per line: the two processes share the pipe, and print() writes a line in pieces.
    os.write(1, ("process %d allreduce %d allgather %d shard_bytes %d result %s\n" %
                 (pid, ALLREDUCES, ALLGATHERS, local.nbytes, r)).encode())
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
