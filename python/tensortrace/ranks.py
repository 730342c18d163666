"""The process's rank in the trace, set from a framework's own knowledge of it (JAX's process
index, torch.distributed's rank) through the preloaded runtime's C API, tt_set_rank."""


def set_rank(rank, world, source):
    """rank: an int >= 0 (else nothing is set); world: the world size or None; source: bytes
    naming where it came from. A runtime without the call leaves the launcher's rank."""
    if not isinstance(rank, int) or rank < 0:
        return
    try:
        import ctypes

        fn = ctypes.CDLL(None).tt_set_rank
        fn.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.c_char_p]
        fn.restype = None
        fn(rank, world if isinstance(world, int) else -1, source)
    except Exception:
        pass
