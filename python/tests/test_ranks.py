"""ranks.py: set_rank passes a rank the framework knows to the runtime's tt_set_rank."""
from _tensortrace.ranks import set_rank
from conftest import LOAD_SHIM, run_child, set_rank_calls


def test_calls_reach_tt_set_rank_as_int64_and_bytes(rank_shim):
    r = run_child(LOAD_SHIM % rank_shim + """
from _tensortrace.ranks import set_rank
set_rank(3, 8, b"jax.process_index")
set_rank(2, None, b"torch.distributed")   # no world size: -1
set_rank(5, "8", b"odd world")            # a world size that is not an int: -1
set_rank(2**40, 2**41, b"big")            # int64, not int
set_rank(0, 1, b"zero")
""")
    assert r.returncode == 0, r.stderr
    assert set_rank_calls(r.stdout) == [(3, 8, "jax.process_index"), (2, -1, "torch.distributed"),
                                        (5, -1, "odd world"), (2**40, 2**41, "big"),
                                        (0, 1, "zero")]


def test_what_is_not_a_rank_sets_nothing(rank_shim):
    r = run_child(LOAD_SHIM % rank_shim + """
from _tensortrace.ranks import set_rank
for rank in (-1, None, "1", 1.0):
    set_rank(rank, 2, b"not a rank")
set_rank(1, 2, b"the one rank")
""")
    assert r.returncode == 0, r.stderr
    assert set_rank_calls(r.stdout) == [(1, 2, "the one rank")]


def test_without_the_runtime_nothing_happens():
    # This process has no tt_set_rank (no runtime preloaded): the launcher's rank stays.
    assert set_rank(1, 2, b"torch.distributed") is None
