"""The launcher of the two-rank gloo test programs (torch_ddp.py, torch_collectives.py, ...):
a program started without RANK in its environment starts itself twice, as torchrun would, with
RANK, LOCAL_RANK, WORLD_SIZE=2, MASTER_ADDR=127.0.0.1 and MASTER_PORT (TT_DDP_PORT, else the
program's own default), and exits with the first failing rank's status."""
import os
import subprocess
import sys


def launch(script, port):
    env = dict(os.environ, WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
               MASTER_PORT=os.environ.get("TT_DDP_PORT", port))
    ranks = [subprocess.Popen([sys.executable, script] + sys.argv[1:],
                              env=dict(env, RANK=str(r), LOCAL_RANK=str(r))) for r in range(2)]
    codes = [p.wait() for p in ranks]
    sys.exit(next((c for c in codes if c), 0))
