"""PyTorch Lightning, as its "Lightning in 15 minutes" guide trains: a LightningModule with
training_step and configure_optimizers, a DataLoader, Trainer(max_steps=...).fit on the CPU.
Synthetic data. Prints one JSON line: each training batch's time from a Lightning Callback
(the time between the ends of consecutive batches, the first from its start, as Keras's
callbacks time a batch)."""
import json
import sys
import time

import lightning as L
import torch
import torch.nn as nn

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 30
BATCH = 64


class AutoEncoder(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 32))
        self.decoder = nn.Sequential(nn.Linear(32, 512), nn.ReLU(), nn.Linear(512, 784))

    def training_step(self, batch, batch_idx):
        x, _ = batch
        x_hat = self.decoder(self.encoder(x))
        return nn.functional.mse_loss(x_hat, x)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


class BatchTimes(L.Callback):
    def __init__(self):
        self.ends = []

    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        if not self.ends:
            self.ends.append(time.perf_counter())

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self.ends.append(time.perf_counter())


def main():
    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.rand(STEPS * BATCH, 784),
                                          torch.zeros(STEPS * BATCH))
    cb = BatchTimes()
    trainer = L.Trainer(max_steps=STEPS, accelerator="cpu", devices=1, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, callbacks=[cb])
    trainer.fit(AutoEncoder(), torch.utils.data.DataLoader(data, batch_size=BATCH))
    times = [(b - a) * 1e3 for a, b in zip(cb.ends, cb.ends[1:])]
    print(json.dumps({"program": "lightning_fit", "steps": len(times), "step_ms": times}))


if __name__ == "__main__":
    main()
