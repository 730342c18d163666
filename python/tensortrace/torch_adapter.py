"""PyTorch's own profiler (Kineto, through torch.autograd.profiler), started and stopped for
tensortrace. Each capture window is saved as Kineto's trace-event JSON in <logdir>/torch/;
record imports it (src/format/import/kineto/).

Who holds CUPTI: a process has one CUPTI subscriber. When record armed its CUDA source
(CUDA_INJECTION64_PATH names libtensortrace), kernels, copies and CUDA API calls come from it,
and Kineto records CPU activities only; otherwise (`--sources` without cuda), with a GPU
present, Kineto records the CUDA activities too (see cuda_activity below).

Steps: a global optimizer-step hook counts the program's optimizer.step() calls (the loop's
iterations). Each window's file is named <window>-s<first step>.pt.trace.json, so the importer
numbers the steps of every window as the loop did. With --steps A:B, Kineto runs only from the
start of step A (from the start where A is 0) to the start of step B+1: memory stays bounded by
the steps asked for. Windows and --steps switch at the loop's next zero_grad() (an optimizer's
or a module's), DataLoader fetch or outermost module call after a step ended (see when_ready)."""
import functools
import os
import weakref


def cuda_activity(env, cuda_available):
    """Whether Kineto should record CUDA activities: a GPU, and no CUPTI source of ours."""
    ours = os.path.basename(env.get("CUDA_INJECTION64_PATH", "")).startswith("libtensortrace")
    return bool(cuda_available) and not ours


class Adapter:
    name = "torch"
    narrows_steps = True  # when_ready takes stop and steps (capture.py)

    def __init__(self, module):
        self.version = str(getattr(module, "__version__", "unknown"))
        self.available = False
        self.unavailable_reason = ""
        self._prof = None
        self._dir = None
        self._window = 0
        self.steps_done = 0  # optimizer.step() calls so far (the hook below)
        self._due = None  # start, stop or rotate, for the next safe point (when_ready)
        self._step_thread = None  # the thread that ran the last optimizer step (the loop's)
        self._first_step = 0  # steps done when the running window started
        self._dist = None  # the last distributed_info() seen (the group may be gone at stop)
        try:
            from torch.autograd import profiler

            self._ap = profiler
            self._torch = module
            self.available = hasattr(profiler, "profile") and hasattr(
                profiler.profile, "_prepare_trace")
            if not self.available:
                self.unavailable_reason = "torch %s: no autograd profiler with Kineto" % (
                    self.version)
        except Exception as e:
            self.unavailable_reason = "torch %s has no usable profiler: %s" % (self.version, e)

    def start(self, logdir, config):
        self._dir = os.path.join(logdir, "torch")
        os.makedirs(self._dir, exist_ok=True)
        cuda = False
        try:
            cuda = cuda_activity(os.environ, self._torch.cuda.is_available())
        except Exception:
            pass
        prof = self._ap.profile(use_device="cuda" if cuda else None, record_shapes=True,
                                profile_memory=True, with_stack=self._python_tracer(config),
                                use_kineto=True)
        prof._tensortrace = True  # ours: the step-aside wrapper lets it through
        prof.__enter__()
        self._prof = prof
        self._first_step = self.steps_done

    def _python_tracer(self, config):
        """--python-tracer: Kineto's Python tracer, unless the program has a profile hook of its
        own, which Kineto's would replace: then ours yields, with one warning."""
        if not config.python_tracer:
            return False
        import sys
        import threading

        from _tensortrace import tracer

        tracer.stop()  # Kineto's delivers the calls: ours would count them twice

        hook = sys.getprofile() or getattr(threading, "getprofile", lambda: None)()
        if hook is None:
            return True
        tracer.warn_own_hook("the program has its own Python profile hook; --python-tracer stays "
                             "off (the code view uses the sampled stacks)")
        return False

    def stop(self):
        prof, self._prof = self._prof, None
        if prof is None:
            return
        self._note_distributed()
        if self._dist:
            try:  # as torch.profiler does: the importer reads ranks and groups from it
                import json

                self._torch.autograd._add_metadata_json("distributedInfo",
                                                        json.dumps(self._dist))
            except Exception:
                pass
        prof.__exit__(None, None, None)
        # Kineto's own JSON, without torch's Python-side parsing of every event.
        path = os.path.join(self._dir, "%d-s%d.pt.trace.json" % (self._window, self._first_step))
        self._window += 1
        # Under another name until whole: a process killed while saving leaves no cut file.
        prof.kineto_results.save(path + ".part")
        os.replace(path + ".part", path)
        save_module_params(self._dir)

    def watch_rank(self):
        watch_torch_rank()

    def _note_distributed(self):
        try:
            info = distributed_info(self._torch)
            if info:
                self._dist = info
        except Exception:
            pass

    def when_ready(self, start, on_error, stop=None, steps=None, rotate=None, window_s=None,
                   windows=None):
        """Starts now, or (--steps A:B with A > 0) at step A; stops (`stop`) after step B; with
        window_s, a new window (`rotate`) after the first step that ends each window_s seconds;
        with `windows` (an on-demand recording's Capture), Kineto runs in its capture windows,
        switched at the first step boundary after each opens or closes.

        The optimizer-step hook only decides: it runs inside the optimizer's own
        record_function range, and a Kineto session stopped or started while a range is open
        corrupts the heap when the range closes. The decision is carried out at the next safe
        point on the program's thread, before any range opens: the next zero_grad() (an
        optimizer's or a module's), DataLoader fetch, or outermost module call on the thread of
        the loop (the model's forward: mark_modules), whichever comes first (safe_point below),
        so that a loop that sets its gradients to None and feeds its own batches switches
        too."""
        import threading
        import time

        first, last = _step_range(steps)
        window_start = [time.monotonic()]
        rank_window_s = rank_window_seconds(os.environ) if windows is None else 0

        def window_due():
            """--window-s's windows, else a rank's (rank_window_seconds) once the job's
            process group has more than one rank."""
            w = window_s or (rank_window_s if (self._dist or {}).get("world_size", 0) > 1 else 0)
            if w and self.steps_done == 1 and not window_s:
                window_start[0] = time.monotonic()  # a rank's first window: start-up + w s
            return w and time.monotonic() - window_start[0] >= w

        def run():
            try:
                start()
            except Exception as e:
                on_error(e)

        def rotate_now():
            rotate()
            window_start[0] = time.monotonic()

        def on_step(*_):
            self.steps_done += 1
            self._step_thread = threading.get_ident()
            if self._dist is None:
                self._note_distributed()  # the program may destroy its group before we stop
            if first > 0 and self.steps_done == first:
                self._due = run
            elif last is not None and self.steps_done == last + 1 and stop is not None:
                self._due = stop
            elif self._prof is not None and rotate is not None and window_due():
                self._due = rotate_now
            elif windows is not None:
                # Kineto switches only between steps: a step that ends while it runs was
                # captured whole.
                if self._prof is not None and windows.count_captured_step():
                    self._due = windows.close_window
                    return
                want = windows.want_window()
                if want and self._prof is None:
                    self._due = windows.open_window
                elif not want and self._prof is not None:
                    self._due = windows.close_window

        try:
            from torch.optim.optimizer import register_optimizer_step_post_hook

            self._wrap_safe_points()
            register_optimizer_step_post_hook(on_step)
        except Exception:
            first, last = 0, None  # no hook: the whole run, filtered at import
        try:
            self._wrap_destroy_group()
        except Exception:
            pass
        if first == 0:
            run()

    def _safe_point(self):
        due, self._due = self._due, None
        if due is not None:
            due()

    def _wrap_safe_points(self):
        """Optimizer.zero_grad and the DataLoader iterator's __next__ open their
        record_function ranges inside: a wrapper around them runs before any range is open;
        so does one around Module.zero_grad, and the outermost module call on the loop's thread
        (mark_modules: before its range opens)."""
        import threading

        from torch.nn import Module
        from torch.optim import Optimizer
        from torch.utils.data.dataloader import _BaseDataLoaderIter

        for cls, attr in ((Optimizer, "zero_grad"), (_BaseDataLoaderIter, "__next__"),
                          (Module, "zero_grad")):
            orig = getattr(cls, attr)

            def wrapped(*args, _orig=orig, **kwargs):
                self._safe_point()
                return _orig(*args, **kwargs)

            setattr(cls, attr, functools.wraps(orig)(wrapped))

        def at_model_call():
            if self._due is not None and threading.get_ident() == self._step_thread:
                self._safe_point()

        _at_outermost_call.append(at_model_call)

    def _wrap_destroy_group(self):
        """A program that destroys its process group before the profiler stops (at exit) has
        its ranks and groups noted just before, for distributedInfo."""
        dist = self._torch.distributed
        if not dist.is_available():
            return
        orig = dist.destroy_process_group

        def wrapped(*args, **kwargs):
            self._note_distributed()
            return orig(*args, **kwargs)

        wrapped = functools.wraps(orig)(wrapped)
        dist.destroy_process_group = wrapped
        dist.distributed_c10d.destroy_process_group = wrapped

    def mark_dataloader_fetches(self):
        """Each batch a DataLoader fetches (in a worker process, or in the loop's process with
        num_workers=0) becomes a range "DataLoader fetch" of tensortrace's own runtime (the
        input pipeline's work): Kineto does not run in forked workers."""
        import ctypes

        lib = ctypes.CDLL(None)
        push, pop = lib.tt_range_push, lib.tt_range_pop  # the preloaded runtime's C API
        push.argtypes, push.restype, pop.restype = [ctypes.c_char_p], None, None
        from torch.utils.data._utils import fetch

        for cls in (fetch._MapDatasetFetcher, fetch._IterableDatasetFetcher):
            orig = cls.fetch

            def wrapped(self, *args, _orig=orig, **kwargs):
                push(b"DataLoader fetch")
                try:
                    return _orig(self, *args, **kwargs)
                finally:
                    pop()

            cls.fetch = functools.wraps(orig)(wrapped)

    def wrap_user_entry_points(self, step_aside):
        """torch.profiler.profile and torch.autograd.profiler.profile both prepare their trace
        through autograd's profile._prepare_trace: the program's own profiler stops ours first
        (Kineto runs one session per process), then runs unchanged."""
        cls = self._ap.profile
        orig = cls._prepare_trace

        @functools.wraps(orig)
        def _prepare_trace(prof, *args, **kwargs):
            if not getattr(prof, "_tensortrace", False):
                step_aside("torch.profiler")
            return orig(prof, *args, **kwargs)

        cls._prepare_trace = _prepare_trace
        try:
            self.mark_dataloader_fetches()
        except Exception:
            pass  # no runtime symbols (not preloaded) or another torch layout: no marks
        try:
            mark_modules(self._torch)
        except Exception:
            pass  # a torch without global module hooks: no module scopes


def watch_torch_rank():
    """torch.distributed's rank and world size, known once init_process_group has returned (its
    arguments, as torch.multiprocessing.spawn's workers pass them, or a launcher's environment),
    become the process's rank in the trace: a job started without a launcher has its ranks too."""
    from _tensortrace import import_hook
    from _tensortrace.ranks import set_rank
    from _tensortrace.rebind import rebind

    def on_c10d(c10d):
        orig = getattr(c10d, "init_process_group", None)
        if orig is None or getattr(orig, "_tensortrace_rank", False):
            return

        @functools.wraps(orig)
        def init_process_group(*args, **kwargs):
            result = orig(*args, **kwargs)
            try:
                # Under torchrun the launcher's RANK is the group's rank already, and named so.
                if "RANK" not in os.environ:
                    set_rank(c10d.get_rank(), c10d.get_world_size(), b"torch.distributed")
            except Exception:
                pass  # never the program's error
            return result

        init_process_group._tensortrace_rank = True
        c10d.init_process_group = init_process_group
        rebind({orig: init_process_group})

    on_c10d.__name__ = "watching torch.distributed's rank"
    import_hook.when_imported("torch.distributed.distributed_c10d", on_c10d)


MODULE_PREFIX = "nn.Module: "
PARAMS_FILE = "params.tsv"
_module_paths = {}  # path -> weak reference to the module mark_modules named so
_at_outermost_call = []  # called at each outermost module call, before its range opens


def save_module_params(logdir):
    """Writes <logdir>/params.tsv: per module path mark_modules saw, "PATH<TAB>N", N the
    trainable parameters (requires_grad) of the module and its submodules, as tfprof's scope
    view counts them (the scope view's params). Atomic; never raises."""
    try:
        lines = []
        for path, ref in list(_module_paths.items()):
            mod = ref()
            if mod is not None:
                n = sum(p.numel() for p in mod.parameters() if p.requires_grad)
                lines.append("%s\t%d\n" % (path, n))
        if not lines:
            return
        tmp = os.path.join(logdir, "." + PARAMS_FILE + ".tmp")
        with open(tmp, "w") as f:
            f.writelines(lines)
        os.replace(tmp, os.path.join(logdir, PARAMS_FILE))
    except Exception:
        pass


def mark_modules(torch):
    """Each nn.Module call becomes a range "nn.Module: <path>" of torch's own profiler (a
    RecordFunction, so Kineto records it on the thread of the ops it holds), where <path> is the
    module hierarchy, "Sequential/Conv2d_0" (class and attribute name under its caller): the
    importer gives each op the path of the module around it (the scope view). Global forward
    hooks; about 2 us per module call (docs/torch.md)."""
    import threading
    import warnings

    from torch.nn.modules import module as nn_module

    # torch.compile traces the hooks too: there they must do nothing (dynamo cannot follow the
    # thread-local stack of modules, and fails the compilation), and the warning torch gives
    # about global hooks is about ours, not the program's.
    compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)
    warnings.filterwarnings("ignore", message=r"Using `torch\.compile\(module\)` when there are "
                            r"global hooks")

    fast = torch._C._profiler._RecordFunctionFast
    local = threading.local()  # .stack: (path, open range, module) of the calls in progress
    names = {}  # (id(caller), id(module)) -> path

    def path_of(mod, stack):
        caller = stack[-1][0] if stack else None
        key = (id(stack[-1][2]) if stack else 0, id(mod))
        path = names.get(key)
        if path is None:
            name = type(mod).__name__
            if stack:
                attr = next((k for k, v in stack[-1][2]._modules.items() if v is mod), None)
                name = caller + "/" + (name + "_" + attr if attr is not None else name)
            path = names[key] = name
            try:
                _module_paths.setdefault(path, weakref.ref(mod))
            except TypeError:
                pass
        return path

    def pre(mod, args):
        if compiling():
            return
        stack = local.__dict__.setdefault("stack", [])
        if not stack:
            for f in _at_outermost_call:
                f()
        path = path_of(mod, stack)
        rf = fast(MODULE_PREFIX + path)
        rf.__enter__()
        stack.append((path, rf, mod))

    def post(mod, args, out):
        if compiling():
            return
        stack = local.__dict__.get("stack")
        if stack and stack[-1][2] is mod:
            stack.pop()[1].__exit__(None, None, None)

    nn_module.register_module_forward_pre_hook(pre)
    nn_module.register_module_forward_hook(post, always_call=True)


def distributed_info(torch):
    """torch.profiler's "distributedInfo" (backend, rank, world size, process groups) while the
    default process group exists, else None: gloo's collectives carry no record_param_comms
    event, so the trace's own metadata names the group, rank and world size."""
    dist = torch.distributed
    if not dist.is_available() or not dist.is_initialized():
        return None
    return {"backend": dist.get_backend(), "rank": dist.get_rank(),
            "world_size": dist.get_world_size(), "pg_count": dist.get_pg_count(),
            "pg_config": dist.distributed_c10d._get_all_pg_configs()}


RANK_WINDOW_S = 5.0


def rank_window_seconds(env):
    """A rank of a job can be killed (by its launcher when another rank fails, by the
    scheduler), and Kineto writes its profile only when stopped: a rank's profiler is stopped
    and restarted every TENSORTRACE_RANK_WINDOW_S seconds (default RANK_WINDOW_S; 0: one window)
    at a step boundary, so that a killed rank keeps its windows before the last. Where
    --window-s is given, its windows instead."""
    from _tensortrace.capture import _warn as _say

    v = env.get("TENSORTRACE_RANK_WINDOW_S")
    try:
        w = float(v) if v else RANK_WINDOW_S
    except ValueError:
        w = RANK_WINDOW_S
        _say("TENSORTRACE_RANK_WINDOW_S=%r is not a number of seconds; windows of %g s" % (v, w))
    if 0 < w < 1:
        _say("TENSORTRACE_RANK_WINDOW_S=%r is under a second; one window" % v)
    return w if w >= 1 else 0



def _step_range(steps):
    """"A:B" (either side may be empty) -> (A, B or None); (0, None) for no range."""
    if not steps:
        return 0, None
    a, _, b = steps.partition(":")
    return (int(a) if a else 0), (int(b) if b else None)
