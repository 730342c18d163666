"""Keras 3 on the torch backend: each call of a model's train function (one batch, or
steps_per_execution batches) runs inside a "ProfilerStep#N" range, torch.profiler's own step
marker, N counted from 0 over the process's calls, so the trace has the trainer's steps as
Kineto marks them when a loop calls prof.step(). Keras's torch trainer calls no torch optimizer
and no profiler step, so without it its steps are not found. The TensorFlow backend's steps
are numbered by tf_adapter.py; the JAX backend's are its jitted train step (the repeated call).
The program's results are unchanged; an error of ours never reaches the program."""
import functools
import itertools


def watch_torch_trainer(step_starts, between_steps):
    """Wraps keras.src.backend.torch.trainer.TorchTrainer.make_train_function once Keras's torch
    backend is imported (now, if it is)."""
    from _tensortrace import import_hook

    counter = itertools.count()

    def counted(fn):
        from torch.autograd.profiler import record_function

        @functools.wraps(fn)
        def step(*args, **kwargs):
            step_starts()
            try:
                with record_function("ProfilerStep#%d" % next(counter)):
                    return fn(*args, **kwargs)
            finally:
                between_steps()

        step._tensortrace_step = True
        return step

    def on_trainer(module):
        cls = getattr(module, "TorchTrainer", None)
        orig = getattr(cls, "make_train_function", None)
        if orig is None or getattr(orig, "_tensortrace_step", False):
            return

        @functools.wraps(orig)
        def maker(self, *args, **kwargs):
            fn = orig(self, *args, **kwargs)
            f = getattr(self, "train_function", None)
            if callable(f) and not getattr(f, "_tensortrace_step", False):
                self.train_function = counted(f)
            return self.train_function if fn is f else fn

        maker._tensortrace_step = True
        cls.make_train_function = maker

    on_trainer.__name__ = "numbering Keras steps (torch backend)"
    import_hook.when_imported("keras.src.backend.torch.trainer", on_trainer)
