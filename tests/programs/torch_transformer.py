"""An nn.TransformerEncoder trained on synthetic token sequences by a plain loop (no DataLoader,
no profiler call, no step marker). Prints `steps N` and `weight_bytes B`. TT_TORCH_REFERENCE:
see torch_reference.py."""
import torch
import torch.nn as nn
import torch_reference

STEPS = 5
VOCAB, SEQ, BATCH, DIM = 100, 16, 4, 32


def train():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    embed = nn.Embedding(VOCAB, DIM)
    layer = nn.TransformerEncoderLayer(DIM, nhead=4, dim_feedforward=64, batch_first=True)
    encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    head = nn.Linear(DIM, VOCAB)
    params = [*embed.parameters(), *encoder.parameters(), *head.parameters()]
    opt = torch.optim.Adam(params, lr=1e-3)
    for step in range(STEPS):
        g = torch.Generator().manual_seed(step)
        tokens = torch.randint(0, VOCAB, (BATCH, SEQ + 1), generator=g)
        opt.zero_grad()
        logits = head(encoder(embed(tokens[:, :-1])))
        loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
    return STEPS, sum(p.numel() * p.element_size() for p in params)


if __name__ == "__main__":
    torch_reference.report(*torch_reference.run(train))
