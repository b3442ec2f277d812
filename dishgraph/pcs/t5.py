"""Fine-tune and run a T5 model on PCS tables (the paper's T5 baseline), scored with the PCS metrics.

The model is any `T5ForConditionalGeneration` checkpoint, a local directory or a hub id, loaded with
``from_pretrained`` together with its tokenizer. The table markup (``<s>``, ``<n>``, and ``<in>``/``<out>``
in the ``tokens`` style) is added to the tokenizer where it is missing and the embeddings are resized, so
the markup is one token each and survives decoding. Training is a plain AdamW loop (no Trainer, so no
extra dependencies); generation decodes without dropping special tokens, because the sentinels are
special tokens in T5 vocabularies and `serialize.parse_target` needs them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from dishgraph.pcs.serialize import FIELDS, fill_rows, markup_tokens, parse_target, serialize_rows, serialize_table
from dishgraph.pcs.tables import PCSTable
from dishgraph.torch_device import resolve_device


@dataclass
class T5Config:
    model: str  # local path or hub id
    output_dir: str | None = None  # where the fine-tuned model and tokenizer are saved
    mask: str = "tokens"  # tokens | sentinel (see serialize)
    max_rows: int | None = None  # rows per example (None: whole table)
    prefix: str = ""  # optional task prefix, e.g. "pcs:"
    epochs: int = 3
    max_steps: int | None = None  # stop after this many optimizer steps
    batch_size: int = 8
    lr: float = 3e-4
    max_source_len: int = 512
    max_target_len: int = 256
    max_new_tokens: int = 256
    num_beams: int = 1
    seed: int = 0
    device: str | None = None  # None or "auto": cuda if available, else cpu (torch_device.resolve_device)


def load_model(path_or_id: str, mask: str = "tokens", device: str = "cpu"):
    """(model, tokenizer) through ``from_pretrained``, with the table markup as whole tokens."""
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    tokenizer = AutoTokenizer.from_pretrained(path_or_id)
    model = T5ForConditionalGeneration.from_pretrained(path_or_id)
    missing = [t for t in markup_tokens(mask) if t not in tokenizer.get_vocab()]
    if missing:
        tokenizer.add_tokens(missing)
    if len(tokenizer) > model.get_input_embeddings().weight.shape[0]:
        model.resize_token_embeddings(len(tokenizer))
    return model.to(device), tokenizer


def _encode(tokenizer, texts: Sequence[str], max_len: int) -> list[list[int]]:
    """Token ids ending in EOS (tokenizers without a post-processor do not add it; generation needs it)."""
    eos = tokenizer.eos_token_id
    out = []
    for ids in tokenizer(list(texts), add_special_tokens=True, truncation=True, max_length=max_len)["input_ids"]:
        ids = list(ids)
        if eos is not None and (not ids or ids[-1] != eos):
            ids = ids[: max_len - 1] + [eos]
        out.append(ids)
    return out


def _pad(seqs: list[list[int]], value: int):
    import torch

    width = max(len(s) for s in seqs)
    return torch.tensor([s + [value] * (width - len(s)) for s in seqs], dtype=torch.long)


def train_t5(
    train: Sequence[PCSTable],
    config: T5Config,
    dev: Sequence[PCSTable] | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> dict:
    """Fine-tune on ``train`` tables; save to ``config.output_dir``; score ``dev`` with the PCS metrics."""
    import torch

    torch.manual_seed(config.seed)
    random.seed(config.seed)
    device = resolve_device(config.device)
    model, tokenizer = load_model(config.model, config.mask, device)
    examples = [ex for t in train for ex in serialize_table(t, config.mask, FIELDS, config.max_rows, config.prefix)]
    if not examples:
        raise ValueError("no training examples (empty tables?)")
    sources = _encode(tokenizer, [e.source for e in examples], config.max_source_len)
    targets = _encode(tokenizer, [e.target for e in examples], config.max_target_len)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    per_epoch = math.ceil(len(examples) / config.batch_size)
    total = config.max_steps or per_epoch * config.epochs
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    model.train()
    losses: list[float] = []
    order = list(range(len(examples)))
    step = 0
    while step < total:
        random.shuffle(order)
        for b in range(0, len(order), config.batch_size):
            idx = order[b : b + config.batch_size]
            input_ids = _pad([sources[i] for i in idx], pad).to(device)
            labels = _pad([targets[i] for i in idx], -100).to(device)
            loss = model(input_ids=input_ids, attention_mask=(input_ids != pad).long(), labels=labels).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            losses.append(float(loss.detach().cpu()))
            step += 1
            if progress:
                progress(step, total, losses[-1])
            if step >= total:
                break
    model.eval()
    if config.output_dir:
        Path(config.output_dir).mkdir(parents=True, exist_ok=True)
        model.save_pretrained(config.output_dir)
        tokenizer.save_pretrained(config.output_dir)
    report = {
        "config": asdict(config),
        "device": device,
        "examples": len(examples),
        "steps": step,
        "loss_first": losses[0],
        "loss_last": losses[-1],
        "loss_last_epoch_mean": sum(losses[-per_epoch:]) / len(losses[-per_epoch:]),
    }
    if dev:
        predicted = predict_tables(model, tokenizer, dev, config)
        report["dev"] = evaluate_tables(predicted, dev)
    return report


def predict_tables(model, tokenizer, tables: Sequence[PCSTable], config: T5Config) -> list[PCSTable]:
    """Fill the input/output cells of each table by generation (instructions and actions are given)."""
    import torch

    device = next(model.parameters()).device
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    drop = [t for t in (tokenizer.pad_token, tokenizer.eos_token) if t]
    out = []
    for t in tables:
        rows = []
        size = config.max_rows or len(t.rows) or 1
        for start in range(0, len(t.rows), size):
            chunk = t.rows[start : start + size]
            src, _ = serialize_rows(chunk, config.mask, FIELDS, config.prefix)
            input_ids = _pad(_encode(tokenizer, [src], config.max_source_len), pad).to(device)
            with torch.no_grad():
                gen = model.generate(
                    input_ids=input_ids,
                    attention_mask=(input_ids != pad).long(),
                    max_new_tokens=config.max_new_tokens,
                    num_beams=config.num_beams,
                )
            text = tokenizer.decode(gen[0], skip_special_tokens=False)
            for tok in drop:
                text = text.replace(tok, " ")
            rows += fill_rows(chunk, parse_target(text, len(chunk), config.mask, FIELDS))
        out.append(PCSTable(id=t.id, title=t.title, rows=rows, source=t.source, line=t.line))
    return out


def evaluate_tables(predicted: Sequence[PCSTable], gold: Sequence[PCSTable]) -> dict:
    """PCS metrics (`dishgraph.eval.pcs_metrics`) over all rows; cells in canonical ``a; b`` form."""
    from dishgraph.eval.pcs_metrics import evaluate_pcs

    pred_rows = [r for t in predicted for r in t.to_rows()]
    gold_rows = [r for t in gold for r in t.to_rows()]
    return evaluate_pcs(pred_rows, gold_rows)


def train_pcs(
    train_path: str | Path,
    config: T5Config,
    dev_path: str | Path | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> dict:
    """Read PCS tables from files/directories and fine-tune (the `dishgraph train pcs` entry point)."""
    from dishgraph.pcs.tables import read_pcs

    train = read_pcs(train_path)
    dev = read_pcs(dev_path) if dev_path else None
    report = train_t5(train, config, dev, progress)
    report.update(train_tables=len(train), dev_tables=len(dev or []))
    return report
