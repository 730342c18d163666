"""Drives tensortrace's ITT collector through the real ITT client of pip `ittapi` (its bundled
ittnotify static part): domains, string handles, nested tasks, thread names through the Python
API; frames, counters, markers and metadata through the same static part's function pointers
(ctypes), which the Python API does not wrap. Exits 3 when ittapi cannot be imported."""
import ctypes
import sys
import threading

try:
    import ittapi
    import ittapi.native as native
except ImportError:
    sys.exit(3)

lib = ctypes.CDLL(native.__file__)


class Id(ctypes.Structure):  # __itt_id, passed by value
    _fields_ = [("d1", ctypes.c_ulonglong), ("d2", ctypes.c_ulonglong), ("d3", ctypes.c_ulonglong)]


def fn(name, restype, *argtypes):
    """The static part's current pointer for __itt_<name> (its init stub until it has loaded a
    collector, which forwards to the collector's function)."""
    addr = ctypes.c_void_p.in_dll(lib, "__itt_%s_ptr__3_0" % name).value
    if not addr:
        sys.exit("no function pointer for __itt_" + name)
    return ctypes.CFUNCTYPE(restype, *argtypes)(addr)


V = ctypes.c_void_p
domain_create = fn("domain_create", V, ctypes.c_char_p)
string_handle_create = fn("string_handle_create", V, ctypes.c_char_p)
frame_begin = fn("frame_begin_v3", None, V, V)
frame_end = fn("frame_end_v3", None, V, V)
counter_create = fn("counter_create", V, ctypes.c_char_p, ctypes.c_char_p)
counter_set_value = fn("counter_set_value", None, V, V)
counter_inc_delta = fn("counter_inc_delta", None, V, ctypes.c_ulonglong)
counter_dec = fn("counter_dec", None, V)
marker = fn("marker", None, V, Id, V, ctypes.c_int)
metadata_add = fn("metadata_add", None, V, Id, V, ctypes.c_int, ctypes.c_size_t, V)
metadata_str_add = fn("metadata_str_add", None, V, Id, V, ctypes.c_char_p, ctypes.c_size_t)

FRAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 3

ittapi.thread_set_name("itt-main")
for _ in range(2):
    with ittapi.task("outer", domain="tt.test"):
        with ittapi.task("inner", domain="tt.test"):
            pass


def worker():
    ittapi.thread_set_name("itt-worker")
    with ittapi.task("work", domain="tt.test"):
        pass


t = threading.Thread(target=worker)
t.start()
t.join()

frames = domain_create(b"tt.frames")
for _ in range(FRAMES):
    frame_begin(frames, None)
    with ittapi.task("in_frame", domain="tt.test"):
        pass
    frame_end(frames, None)

depth = counter_create(b"queue_depth", b"tt.test")
counter_set_value(depth, ctypes.cast(ctypes.pointer(ctypes.c_uint64(5)), V))
counter_inc_delta(depth, 3)
counter_dec(depth)

d = domain_create(b"tt.test")
marker(d, Id(0, 0, 0), string_handle_create(b"checkpoint"), 2)
with ittapi.task("with_meta", domain="tt.test"):
    sizes = (ctypes.c_uint64 * 2)(64, 128)
    metadata_add(d, Id(0, 0, 0), string_handle_create(b"sizes"), 1, 2, ctypes.cast(sizes, V))
    metadata_str_add(d, Id(0, 0, 0), string_handle_create(b"note"), b"hello", 5)
# __itt_event: nested slices.
with ittapi.event("an_event"):
    pass
# Entries the collector does not implement keep the client's stubs: harmless, nothing recorded.
with ittapi.task("overlapped", domain="tt.test", overlapped=True):
    pass
ittapi.pause()
ittapi.resume()
print("itt_ittapi: done")
