"""DiNeR's seq2seq baselines on a dataset of `dishgraph diner dataset`: T5, continual pretraining, CP-FT.

- **FT**: ``T5ForConditionalGeneration`` (local directory or hub id, through ``from_pretrained``) reads
  ``<instructions>这道菜的菜名是什么？`` and writes the dish name. As in the paper, 20% of the training
  side is held out for validation; the validation loss is measured every epoch and training stops when it
  has not improved for ``patience`` epochs, the best weights restored.
- **CP** (``pretrain``): T5 span corruption (15% noise, mean span 3, sentinels ``<extra_id_i>``) on a
  pretraining corpus (the dataset's ``pretrain.jsonl``: recipes of no dataset dish, leakage rule applied)
  before fine-tuning.
- **CP-FT** (``mode="cp-ft"``): three component models (food / action / flavour: instructions -> the
  components of that type, ``、``-joined, ``无`` for none), whose predictions are added to the input as the
  compositional prompt ``食材：…；做法：…；口味：…。`` before the final fine-tuning. Predictions feed the
  prompt on every side (train, validation, test), so training sees prompts as noisy as the test's.

GPU-ready: ``device`` (auto | cpu | cuda[:N]), ``dtype`` (float32 | bfloat16 | float16 autocast), batching.
Checkpoints are written with ``save_pretrained`` (safetensors); nothing here calls ``torch.load``.
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from dishgraph.diner.dataset import PROMPT_SUFFIX
from dishgraph.diner.names import TYPES
from dishgraph.torch_device import resolve_device

MODES = ("ft", "cp-ft")
TYPE_LABELS = {"food": "食材", "action": "做法", "flavour": "口味"}
NONE = "无"


@dataclass
class DinerT5Config:
    model: str  # local path or hub id
    output_dir: str | None = None
    mode: str = "ft"  # ft | cp-ft
    epochs: int = 10
    max_steps: int | None = None  # cap on optimizer steps per training run
    batch_size: int = 16
    lr: float = 3e-4
    val_fraction: float = 0.2
    patience: int = 2
    max_source_chars: int = 400  # instructions are cut to this many characters before tokenizing
    max_source_len: int = 512
    max_target_len: int = 32
    max_new_tokens: int = 24
    num_beams: int = 1
    pretrain_steps: int = 0  # span-corruption steps on the pretraining corpus (0: no CP)
    noise_density: float = 0.15
    mean_span: float = 3.0
    device: str | None = None  # None or "auto": cuda if available, else cpu (torch_device.resolve_device)
    dtype: str = "float32"
    seed: int = 0


def _autocast(device: str, dtype: str):
    import contextlib

    import torch

    if dtype == "float32":
        return contextlib.nullcontext()
    if dtype not in ("bfloat16", "float16"):
        raise ValueError(f"dtype must be float32, bfloat16 or float16, not {dtype!r}")
    return torch.autocast(device_type=device.split(":")[0], dtype=getattr(torch, dtype))


def load(path_or_id: str, device: str = "cpu"):
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    tokenizer = AutoTokenizer.from_pretrained(path_or_id)
    model = T5ForConditionalGeneration.from_pretrained(path_or_id)
    return model.to(device), tokenizer


def source_text(example: dict, prompt: str = "", max_chars: int = 400) -> str:
    return example["instructions"][:max_chars] + prompt + PROMPT_SUFFIX


def _encode(tokenizer, texts: Sequence[str], max_len: int) -> list[list[int]]:
    from dishgraph.pcs.t5 import _encode as encode

    return encode(tokenizer, texts, max_len)


def _batches(model, tokenizer, sources, targets, idx, device):
    from dishgraph.pcs.t5 import _pad

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    input_ids = _pad([sources[i] for i in idx], pad).to(device)
    labels = _pad([targets[i] for i in idx], -100).to(device)
    return input_ids, (input_ids != pad).long(), labels


def _val_loss(model, tokenizer, sources, targets, cfg, device) -> float:
    import torch

    if not sources:
        return float("nan")
    model.eval()
    total = n = 0.0
    with torch.no_grad(), _autocast(device, cfg.dtype):
        for b in range(0, len(sources), cfg.batch_size):
            idx = list(range(b, min(b + cfg.batch_size, len(sources))))
            ids, mask, labels = _batches(model, tokenizer, sources, targets, idx, device)
            total += float(model(input_ids=ids, attention_mask=mask, labels=labels).loss) * len(idx)
            n += len(idx)
    model.train()
    return total / n


def fit(
    model,
    tokenizer,
    pairs: Sequence[tuple[str, str]],
    cfg: DinerT5Config,
    device: str,
    progress: Callable[[str, int, int, float], None] | None = None,
    label: str = "fine-tune",
) -> dict:
    """Seq2seq fine-tuning with a held-out validation share and early stopping (best weights restored)."""
    import torch

    rng = random.Random(cfg.seed)
    order = list(range(len(pairs)))
    rng.shuffle(order)
    n_val = int(len(pairs) * cfg.val_fraction) if len(pairs) > 1 else 0
    val, train = order[:n_val], order[n_val:]
    src = _encode(tokenizer, [pairs[i][0] for i in train], cfg.max_source_len)
    tgt = _encode(tokenizer, [pairs[i][1] for i in train], cfg.max_target_len)
    vsrc = _encode(tokenizer, [pairs[i][0] for i in val], cfg.max_source_len)
    vtgt = _encode(tokenizer, [pairs[i][1] for i in val], cfg.max_target_len)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    scaler = torch.amp.GradScaler(enabled=(cfg.dtype == "float16" and device.startswith("cuda")))
    per_epoch = math.ceil(len(train) / cfg.batch_size)
    total = min(cfg.max_steps or per_epoch * cfg.epochs, per_epoch * cfg.epochs)
    history, best, best_state, bad, step = [], math.inf, None, 0, 0
    model.train()
    t0 = time.perf_counter()
    for epoch in range(cfg.epochs):
        ids = list(range(len(train)))
        rng.shuffle(ids)
        losses = []
        for b in range(0, len(ids), cfg.batch_size):
            input_ids, mask, labels = _batches(model, tokenizer, src, tgt, ids[b : b + cfg.batch_size], device)
            with _autocast(device, cfg.dtype):
                loss = model(input_ids=input_ids, attention_mask=mask, labels=labels).loss
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            losses.append(float(loss.detach()))
            step += 1
            if progress:
                progress(label, step, total, losses[-1])
            if step >= total:
                break
        v = _val_loss(model, tokenizer, vsrc, vtgt, cfg, device)
        history.append({"epoch": epoch + 1, "steps": step, "train_loss": sum(losses) / len(losses), "val_loss": v})
        if not vsrc or v < best - 1e-6:
            best, bad = v, 0
            best_state = copy.deepcopy(model.state_dict()) if vsrc else None
        else:
            bad += 1
        if bad >= cfg.patience or step >= total:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return {
        "label": label,
        "train": len(train),
        "validation": len(val),
        "steps": step,
        "epochs_run": len(history),
        "best_val_loss": best,
        "early_stopped": bad >= cfg.patience,
        "history": history,
        "seconds": time.perf_counter() - t0,
    }


def generate(model, tokenizer, sources: Sequence[str], cfg: DinerT5Config, device: str) -> list[str]:
    import torch

    from dishgraph.pcs.t5 import _pad

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    out = []
    for b in range(0, len(sources), cfg.batch_size):
        ids = _pad(_encode(tokenizer, sources[b : b + cfg.batch_size], cfg.max_source_len), pad).to(device)
        with torch.no_grad(), _autocast(device, cfg.dtype):
            gen = model.generate(
                input_ids=ids,
                attention_mask=(ids != pad).long(),
                max_new_tokens=cfg.max_new_tokens,
                num_beams=cfg.num_beams,
            )
        out.extend(t.replace(" ", "").strip() for t in tokenizer.batch_decode(gen, skip_special_tokens=True))
    return out


def span_corrupt(
    ids: list[int], sentinels: list[int], eos: int, rng: random.Random, density: float = 0.15, mean_span: float = 3.0
) -> tuple[list[int], list[int]]:
    """T5's span corruption of one token sequence: masked spans -> sentinels in the input, and the target
    lists each sentinel followed by the tokens it replaced."""
    body = ids[:-1] if ids and ids[-1] == eos else list(ids)
    n = len(body)
    n_noise = max(1, round(n * density)) if n > 1 else 0
    n_spans = max(1, min(len(sentinels), round(n_noise / mean_span))) if n_noise else 0
    masked = [False] * n
    starts = sorted(rng.sample(range(n), min(n_spans, n))) if n_spans else []
    length = max(1, round(n_noise / max(1, len(starts)))) if starts else 0
    for s in starts:
        for j in range(s, min(n, s + length)):
            masked[j] = True
    src, tgt, k, i = [], [], 0, 0
    while i < n:
        if masked[i] and k < len(sentinels):
            src.append(sentinels[k])
            tgt.append(sentinels[k])
            while i < n and masked[i]:
                tgt.append(body[i])
                i += 1
            k += 1
        else:
            src.append(body[i])
            i += 1
    return src + [eos], tgt + [eos]


def pretrain(
    model,
    tokenizer,
    texts: Sequence[str],
    cfg: DinerT5Config,
    device: str,
    progress: Callable[[str, int, int, float], None] | None = None,
) -> dict:
    """Continual pretraining: ``cfg.pretrain_steps`` optimizer steps of span corruption over ``texts``."""
    import torch

    from dishgraph.pcs.t5 import _pad

    if not texts:
        raise ValueError("the pretraining corpus is empty")
    sentinels = [tokenizer.convert_tokens_to_ids(f"<extra_id_{i}>") for i in range(100)]
    sentinels = [s for s in sentinels if s is not None and s != tokenizer.unk_token_id]
    if not sentinels:
        raise ValueError("the tokenizer has no <extra_id_N> sentinels for span corruption")
    eos = tokenizer.eos_token_id
    rng = random.Random(cfg.seed)
    encoded = _encode(tokenizer, [t[: cfg.max_source_chars] for t in texts], cfg.max_source_len)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    model.train()
    losses, t0 = [], time.perf_counter()
    for step in range(1, cfg.pretrain_steps + 1):
        pairs = [
            span_corrupt(encoded[rng.randrange(len(encoded))], sentinels, eos, rng, cfg.noise_density, cfg.mean_span)
            for _ in range(cfg.batch_size)
        ]
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        ids = _pad([p[0] for p in pairs], pad).to(device)
        labels = _pad([p[1] for p in pairs], -100).to(device)
        with _autocast(device, cfg.dtype):
            loss = model(input_ids=ids, attention_mask=(ids != pad).long(), labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(float(loss.detach()))
        if progress:
            progress("pretrain", step, cfg.pretrain_steps, losses[-1])
    model.eval()
    return {
        "steps": cfg.pretrain_steps,
        "texts": len(texts),
        "loss_first": losses[0] if losses else None,
        "loss_last": losses[-1] if losses else None,
        "seconds": time.perf_counter() - t0,
    }


def component_target(example: dict, type_: str) -> str:
    surfaces = list(dict.fromkeys(c["surface"] for c in example["components"] if c["type"] == type_))
    return "、".join(surfaces) or NONE


def compositional_prompt(predicted: dict[str, str]) -> str:
    return (
        "".join(f"{TYPE_LABELS[t]}：{predicted.get(t) or NONE}；" for t in TYPES if t in TYPE_LABELS).rstrip("；")
        + "。"
    )


def train_diner(
    train: Sequence[dict],
    test: Sequence[dict],
    cfg: DinerT5Config,
    pretrain_texts: Sequence[str] | None = None,
    progress: Callable[[str, int, int, float], None] | None = None,
) -> tuple[list[dict], dict]:
    """Run one baseline end to end; returns (predictions rows for `eval diner`, report)."""
    import torch

    from dishgraph.diner.recognizer import predictions_file_rows

    if cfg.mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {cfg.mode!r}")
    if not train or not test:
        raise ValueError(f"need training and test examples (got {len(train)} / {len(test)})")
    torch.manual_seed(cfg.seed)
    device = resolve_device(cfg.device)
    report: dict = {"config": asdict(cfg), "device": device, "train_examples": len(train), "test_examples": len(test)}
    t0 = time.perf_counter()
    base = cfg.model
    if cfg.pretrain_steps:
        model, tok = load(cfg.model, device)
        report["pretrain"] = pretrain(model, tok, pretrain_texts or [], cfg, device, progress)
        base = str(Path(cfg.output_dir or ".") / "pretrained") if cfg.output_dir else None
        if base:
            model.save_pretrained(base)
            tok.save_pretrained(base)
        else:  # nothing to save to: keep the pretrained weights in memory for every model below
            base_state = copy.deepcopy(model.state_dict())
    prompts_train = [""] * len(train)
    prompts_test = [""] * len(test)

    def fresh():
        m, t = load(base if base else cfg.model, device)
        if not base:
            m.load_state_dict(base_state)
        return m, t

    if cfg.mode == "cp-ft":
        report["components"] = {}
        pred_train = {t: [""] * len(train) for t in TYPES}
        pred_test = {t: [""] * len(test) for t in TYPES}
        for t in TYPES:
            m, tok = fresh()
            pairs = [(source_text(e, "", cfg.max_source_chars), component_target(e, t)) for e in train]
            report["components"][t] = fit(m, tok, pairs, cfg, device, progress, f"component {t}")
            pred_train[t] = generate(m, tok, [p[0] for p in pairs], cfg, device)
            pred_test[t] = generate(m, tok, [source_text(e, "", cfg.max_source_chars) for e in test], cfg, device)
            del m
        prompts_train = [compositional_prompt({t: pred_train[t][i] for t in TYPES}) for i in range(len(train))]
        prompts_test = [compositional_prompt({t: pred_test[t][i] for t in TYPES}) for i in range(len(test))]
    model, tok = fresh()
    pairs = [(source_text(e, p, cfg.max_source_chars), e["name"]) for e, p in zip(train, prompts_train)]
    report["fine_tune"] = fit(model, tok, pairs, cfg, device, progress, "fine-tune")
    if cfg.output_dir:
        Path(cfg.output_dir).mkdir(parents=True, exist_ok=True)
        model.save_pretrained(cfg.output_dir)  # safetensors
        tok.save_pretrained(cfg.output_dir)
    preds = generate(
        model, tok, [source_text(e, p, cfg.max_source_chars) for e, p in zip(test, prompts_test)], cfg, device
    )
    report["seconds"] = time.perf_counter() - t0
    rows = predictions_file_rows(test, preds)
    if cfg.mode == "cp-ft":
        for r, p in zip(rows, prompts_test):
            r["prompt"] = p
    return rows, report


def run_baseline(
    dataset_dir,
    cfg: DinerT5Config,
    *,
    split: str | None = None,
    fraction: float = 1.0,
    pretrain_corpus: str | None = None,
    progress=None,
) -> dict:
    """The `dishgraph train diner` entry point: read the split, train, predict, score, write outputs."""
    import json

    from dishgraph.diner.dataset import read_jsonl, split_files, write_jsonl
    from dishgraph.diner.metrics import diner_f1

    train_path, test_path, entry = split_files(dataset_dir, split, fraction)
    texts = None
    if pretrain_corpus:
        texts = [r["instructions"] for r in read_jsonl(pretrain_corpus) if isinstance(r.get("instructions"), str)]
    rows, report = train_diner(read_jsonl(train_path), read_jsonl(test_path), cfg, texts, progress)
    scores = diner_f1([r["pred"] for r in rows], [r["gold"] for r in rows], None, [r.get("form") for r in rows])
    report.update(
        split=entry["name"],
        fraction=fraction,
        mode=cfg.mode,
        f1=scores.micro.f1,
        exact_match=scores.exact_match,
        by_form=scores.by_form,
        by_type={t: c.f1 for t, c in scores.by_type.items()},
    )
    out = Path(cfg.output_dir or ".")
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "predictions.jsonl", rows)
    report["predictions"] = str(out / "predictions.jsonl")
    (out / "report.json").write_text(
        json.dumps(report, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8"
    )
    return report
