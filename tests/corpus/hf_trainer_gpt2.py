"""Hugging Face transformers' Trainer, as its "Fine-tune a pretrained model" guide trains: a
model, TrainingArguments and a Dataset given to Trainer, trainer.train(). The model is a tiny
GPT-2 built from a GPT2Config (no download, no from_pretrained), the data synthetic token ids.
Prints one JSON line: each optimizer step's time from a TrainerCallback (the time between the
ends of consecutive steps, the first from the step's begin), so tests compare tensortrace's
steps with the program's timing."""
import json
import sys
import tempfile
import time

import torch
from transformers import (GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback,
                          TrainingArguments)

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
BATCH, SEQ = 8, 64


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n, vocab):
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, vocab, (n, SEQ), generator=g)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


class StepTimes(TrainerCallback):
    def __init__(self):
        self.ends = []

    def on_step_begin(self, args, state, control, **kwargs):
        if not self.ends:
            self.ends.append(time.perf_counter())

    def on_step_end(self, args, state, control, **kwargs):
        self.ends.append(time.perf_counter())


def main():
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=512, n_positions=SEQ, n_embd=128, n_layer=2, n_head=4)
    model = GPT2LMHeadModel(config)
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(output_dir=out, max_steps=STEPS,
                                 per_device_train_batch_size=BATCH, learning_rate=1e-3,
                                 use_cpu=True, report_to="none", save_strategy="no",
                                 logging_strategy="no", disable_tqdm=True)
        cb = StepTimes()
        trainer = Trainer(model=model, args=args, train_dataset=Tokens(STEPS * BATCH, 512),
                          callbacks=[cb])
        trainer.train()
    times = [(b - a) * 1e3 for a, b in zip(cb.ends, cb.ends[1:])]
    print(json.dumps({"program": "hf_trainer_gpt2", "steps": len(times), "step_ms": times}))


if __name__ == "__main__":
    main()
