"""Fine-tune (or train from scratch) the causal recipe LM behind every generator of this package.

Texts are formatted as the CRG paper does ("[Dish]的做法如下。[Recipe]", framed ``[CLS] … [SEP]``). Recipes
of held-out dishes — the target dishes of the evaluation pairs — are dropped before anything else happens
(also before a from-scratch vocabulary is built), and the list of dishes actually trained on is written to
``train_log.json`` so the hold-out can be audited. Training is a plain AdamW loop (lr 5e-5 by default,
linear decay) with a checkpoint every `save_every` steps that `resume=True` continues exactly: the
per-epoch shuffle is a function of (seed, epoch), so a resumed run skips the batches it already took.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dishgraph.models import prompts
from dishgraph.models.tokenizer import end_id, ensure_lm_special_tokens, start_id

CHECKPOINT_DIR = "checkpoint"
STATE_FILE = "trainer_state.pt"


def load_trainer_state(path: Path) -> dict:
    """The trainer state of a checkpoint, loaded with ``weights_only=True``: tensors, numbers, strings,
    lists and dicts only. A file naming any other global (a crafted pickle that would run code on
    ``--resume``) is refused with `InputError`, never executed."""
    import pickle

    import torch

    from dishgraph.errors import InputError

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        first = " ".join(str(e).split())[:200]
        raise InputError(f"{path}: refused: not a plain trainer-state file (it names code to run: {first})") from None
    except (RuntimeError, EOFError, OSError) as e:
        raise InputError(f"{path}: cannot be read as a trainer state ({' '.join(str(e).split())[:200]})") from None
    if not isinstance(state, dict) or "optimizer" not in state:
        raise InputError(f"{path}: not a dishgraph trainer state")
    return state


LOG_FILE = "train_log.json"
PLOT_FILE = "loss.png"


# ----------------------------------------------------------------------------------------------- data


def recipes_from_store(store) -> list[tuple[str, str]]:
    """(dish, recipe text) for every recipe in the graph, in recipe-id order."""
    return [(r["dish"], r["text"]) for r in store.query("lm_training_recipes") if r.get("text")]


def held_out_from_store(store) -> set[str]:
    """Target dishes of all dish pairs: they must never be seen in training."""
    return {r["name"] for r in store.query("lm_heldout_targets")}


def recipes_from_release(data_dir: str | Path | None = None) -> tuple[list[tuple[str, str]], set[str]]:
    """(dish, recipe) pairs of base_recipes.txt and the pairs' target dishes, without a database."""
    from dishgraph.eval.outputs import load_instances

    instances = load_instances(data_dir)
    return [(i.base, i.base_recipe) for i in instances], {i.target for i in instances}


def split_held_out(recipes: Iterable[tuple[str, str]], held_out: set[str]) -> tuple[list[tuple[str, str]], int]:
    """Recipes whose dish is not held out, and how many were dropped."""
    kept, dropped = [], 0
    for dish, text in recipes:
        if dish in held_out:
            dropped += 1
        elif text and text.strip():
            kept.append((dish, text.strip()))
    return kept, dropped


# ---------------------------------------------------------------------------------------------- config


@dataclass
class TrainConfig:
    out: str
    init: str | None = None  # local dir or hub id; None = from scratch with a character vocabulary
    epochs: float = 3.0
    max_steps: int | None = None  # stop after this many optimizer steps (overrides epochs when smaller)
    max_seconds: float | None = None  # wall-time budget: checkpoint and stop once exceeded (CPU runs)
    pack: bool = False  # concatenate recipes into full max_length blocks (no padding waste)
    objective: str = "causal"  # causal (GPT-2) | masked (BERT MLM, for EduCat's proposals)
    tokenizer_from: str | None = None  # masked from scratch: reuse this LM's vocabulary (EduCat needs one)
    mask_prob: float = 0.15
    lr: float = 5e-5
    warmup_steps: int = 0
    weight_decay: float = 0.0
    batch_size: int = 8
    max_length: int = 512
    val_fraction: float = 0.05
    eval_every: int = 200
    save_every: int = 200
    device: str | None = None
    dtype: str = "float32"  # float32 | bfloat16 | float16 (autocast on CUDA; bf16 also on CPU)
    seed: int = 0
    resume: bool = False
    keep_best: bool = False  # also save the lowest-validation-loss weights to out/best (long GPU runs)
    # sizes of a from-scratch GPT-2
    n_layer: int = 2
    n_embd: int = 128
    n_head: int = 2
    n_positions: int = 1024


@dataclass
class TrainResult:
    out: str
    steps: int
    epochs_done: float
    train_recipes: int
    train_rows: int
    dropped_held_out: int
    val_recipes: int
    final_train_loss: float | None
    val_loss: float | None
    val_ppl: float | None
    seconds: float
    parameters: int
    tokens: int = 0  # training tokens (non-padding) processed by this run
    tokens_per_s: float | None = None
    best_val_loss: float | None = None
    best_step: int | None = None
    losses: list = field(default_factory=list, repr=False)

    def summary(self) -> dict:
        d = asdict(self)
        d.pop("losses")
        return d


# -------------------------------------------------------------------------------------------- training


def _encode(tokenizer, dish: str, text: str, max_length: int) -> list[int]:
    body = tokenizer.encode(prompts.training_text(dish, text), add_special_tokens=False)
    return ([start_id(tokenizer)] + body + [end_id(tokenizer)])[:max_length]


def _batches(examples: Sequence[list[int]], batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    order = list(range(len(examples)))
    random.Random(seed * 1_000_003 + epoch).shuffle(order)
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def _pack(examples: Sequence[list[int]], block: int, seed: int) -> list[list[int]]:
    """Recipes (each framed [CLS] … [SEP]) concatenated in a seeded order and cut into `block`-token rows.

    Padding a batch to its longest recipe wastes ~40% of the compute on this corpus; GPT-2 itself was
    trained on packed text. The order is fixed by the seed, so a resumed run sees the same blocks.
    """
    order = list(range(len(examples)))
    random.Random(seed).shuffle(order)
    stream = [t for i in order for t in examples[i]]
    return [stream[i : i + block] for i in range(0, len(stream), block) if len(stream[i : i + block]) > 1]


def _collate(examples: Sequence[list[int]], idx: list[int], pad_id: int, device: str, masking=None):
    import torch

    width = max(len(examples[i]) for i in idx)
    ids = torch.full((len(idx), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(idx), width), dtype=torch.long)
    for row, i in enumerate(idx):
        ids[row, : len(examples[i])] = torch.tensor(examples[i])
        mask[row, : len(examples[i])] = 1
    labels = ids.masked_fill(mask == 0, -100)
    if masking is not None:
        ids, labels = _mask_tokens(ids, labels, *masking)
    return ids.to(device), mask.to(device), labels.to(device)


def _mask_tokens(ids, labels, tokenizer, prob: float, seed: int):
    """BERT masking: `prob` of the non-special tokens are predicted, 80% shown as [MASK], 10% random, 10% kept.

    The draw is seeded per batch (by `seed`), so validation is stable and a resumed run masks as before.
    """
    import torch

    gen = torch.Generator().manual_seed(seed)
    special = torch.tensor(sorted(set(tokenizer.all_special_ids)))
    candidates = (labels != -100) & ~torch.isin(ids, special)
    chosen = candidates & (torch.rand(ids.shape, generator=gen) < prob)
    labels = labels.masked_fill(~chosen, -100)
    roll = torch.rand(ids.shape, generator=gen)
    ids = ids.clone()
    ids[chosen & (roll < 0.8)] = tokenizer.mask_token_id
    rand = chosen & (roll >= 0.8) & (roll < 0.9)
    ids[rand] = torch.randint(len(special), len(tokenizer), ids.shape, generator=gen)[rand]
    return ids, labels


def _load_or_create(config: TrainConfig, texts: list[str], start_dir: Path | None):
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    from dishgraph.models.scratch import new_bert_mlm, new_gpt2
    from dishgraph.models.tokenizer import build_char_tokenizer

    if config.objective == "masked":
        src = start_dir or config.init
        if src is not None:
            return AutoModelForMaskedLM.from_pretrained(str(src)), AutoTokenizer.from_pretrained(str(src))
        tokenizer = (
            AutoTokenizer.from_pretrained(config.tokenizer_from)
            if config.tokenizer_from
            else build_char_tokenizer([*texts, prompts.rewrite_prompt("", "", "")])
        )
        model = new_bert_mlm(
            tokenizer,
            seed=config.seed,
            n_layer=config.n_layer,
            n_embd=config.n_embd,
            n_head=config.n_head,
            n_positions=min(config.n_positions, 512),
        )
        return model, tokenizer
    if config.objective != "causal":
        raise ValueError(f"objective must be 'causal' or 'masked', got {config.objective!r}")
    if start_dir is not None or config.init:
        src = str(start_dir or config.init)
        tokenizer = AutoTokenizer.from_pretrained(src)
        ensure_lm_special_tokens(tokenizer)
        model = AutoModelForCausalLM.from_pretrained(src)
        return model, tokenizer
    frame = prompts.rewrite_prompt("", "", "")  # the prompt characters must be in the vocabulary
    tokenizer = build_char_tokenizer([*texts, frame])
    model = new_gpt2(
        tokenizer,
        seed=config.seed,
        n_layer=config.n_layer,
        n_embd=config.n_embd,
        n_head=config.n_head,
        n_positions=config.n_positions,
    )
    return model, tokenizer


def _val_loss(model, examples, idx_batches, pad_id, device, autocast, masking=None) -> float | None:
    import torch

    if not examples:
        return None
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad(), autocast():
        for idx in idx_batches:
            ids, mask, labels = _collate(examples, idx, pad_id, device, masking and (*masking, idx[0]))
            out = model(input_ids=ids, attention_mask=mask, labels=labels)
            n = int((labels[:, 1:] != -100).sum()) if masking is None else int((labels != -100).sum())
            total += float(out.loss) * n
            count += n
    model.train()
    return total / max(count, 1)


def train_lm(
    recipes: Iterable[tuple[str, str]],
    held_out: set[str],
    config: TrainConfig,
    progress: Callable[[int, int, float], None] | None = None,
    val_recipes: Iterable[tuple[str, str]] | None = None,
) -> TrainResult:
    """Train the recipe LM on `recipes` minus `held_out` dishes; writes the model, log and loss plot to out.

    `val_recipes` is a fixed validation set (a GPU bundle's val.jsonl, so models of different sizes are
    compared on the same recipes); without it `val_fraction` of `recipes` is drawn with the seed.
    """
    t0 = time.perf_counter()
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    train_pairs, val_pairs, dropped = _train_val_split(recipes, set(held_out), config, val_recipes)
    run = _TrainingRun(config, out, train_pairs, val_pairs)
    run.train(progress, t0)
    val = run.finish()
    result = run.result(val, dropped, t0)
    log = {
        "summary": result.summary(),
        "config": asdict(config),
        "losses": run.losses,
        "val_history": run.val_history,
        "held_out_dishes": sorted(held_out),
        "trained_dishes": sorted({d for d, _ in train_pairs}),
        "validation_dishes": sorted({d for d, _ in val_pairs}),
    }
    (out / LOG_FILE).write_text(json.dumps(log, ensure_ascii=False, indent=1), encoding="utf-8")
    plot_losses(run.losses, run.val_history, out / PLOT_FILE)
    return result


def _train_val_split(
    recipes: Iterable[tuple[str, str]],
    held_out: set[str],
    config: TrainConfig,
    val_recipes: Iterable[tuple[str, str]] | None,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]], int]:
    """(training recipes, validation recipes, how many held-out recipes were dropped from both)."""
    kept, dropped = split_held_out(recipes, held_out)
    if not kept:
        raise ValueError("no training recipes left after removing the held-out dishes")
    if val_recipes is not None:
        val_pairs, val_dropped = split_held_out(val_recipes, held_out)
        return kept, val_pairs, dropped + val_dropped
    order = list(range(len(kept)))
    random.Random(config.seed).shuffle(order)
    n_val = int(len(kept) * config.val_fraction) if len(kept) > 20 else 0
    return [kept[i] for i in order[n_val:]], [kept[i] for i in order[:n_val]], dropped


class _TrainingRun:
    """One training run's state: model, optimizer, schedule, step counter, losses and the best weights so far.

    A class rather than one long function because checkpointing, validation and the step all read and
    write the same state; the order of the set-up steps (model init, optimizer, resumed RNG) is the
    order a resumed run depends on.
    """

    def __init__(
        self, config: TrainConfig, out: Path, train_pairs: list[tuple[str, str]], val_pairs: list[tuple[str, str]]
    ):
        import torch

        from dishgraph.models.gpt2 import torch_dtype
        from dishgraph.torch_device import resolve_device

        self._torch = torch
        self.config, self.out, self.ckpt = config, out, out / CHECKPOINT_DIR
        self.device, self.dtype = resolve_device(config.device), torch_dtype(config.dtype)
        self.train_pairs = train_pairs
        resuming = config.resume and (self.ckpt / STATE_FILE).exists()
        self.model, self.tokenizer = _load_or_create(
            config, [prompts.training_text(d, t) for d, t in train_pairs], self.ckpt if resuming else None
        )
        self._encode_examples(train_pairs, val_pairs)
        self.model.to(self.device).train()
        self.per_epoch = math.ceil(len(self.train_ex) / config.batch_size)
        self.total_steps = math.ceil(config.epochs * self.per_epoch)
        if config.max_steps is not None:
            self.total_steps = min(self.total_steps, config.max_steps)
        self._make_optimizer()
        self.step, self.losses, self.val_history = 0, [], []
        if resuming:
            self._restore(load_trainer_state(self.ckpt / STATE_FILE))
        self.val_batches = [
            list(range(i, min(i + config.batch_size, len(self.val_ex))))
            for i in range(0, len(self.val_ex), config.batch_size)
        ]
        self.pad_id = self.tokenizer.pad_token_id
        self.masking = (self.tokenizer, config.mask_prob) if config.objective == "masked" else None
        self.tokens, self.train_seconds = 0, 0.0  # optimizer steps only (validation and checkpoints excluded)
        self.best: list = [None, None]  # (val loss, step) of the weights in out/best
        if config.keep_best and (out / "best").is_dir():  # a resumed run keeps the best of the earlier steps
            earlier = [(v, s) for s, v in self.val_history if v is not None]
            self.best = list(min(earlier)) if earlier else self.best

    def _encode_examples(self, train_pairs, val_pairs) -> None:
        config, model, tokenizer = self.config, self.model, self.tokenizer
        positions = getattr(model.config, "n_positions", None) or getattr(model.config, "max_position_embeddings", None)
        max_len = min(config.max_length, int(positions or config.max_length))
        # packed rows are cut from the whole stream, so recipes are not truncated before packing
        self.train_ex = [_encode(tokenizer, d, t, 1 << 30 if config.pack else max_len) for d, t in train_pairs]
        self.val_ex = [_encode(tokenizer, d, t, max_len) for d, t in val_pairs]
        if config.pack:
            self.train_ex = _pack(self.train_ex, max_len, config.seed)

    def _make_optimizer(self) -> None:
        from transformers import get_linear_schedule_with_warmup

        torch, config = self._torch, self.config
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.sched = get_linear_schedule_with_warmup(self.opt, config.warmup_steps, max(self.total_steps, 1))
        fp16_cuda = self.dtype == torch.float16 and self.device.startswith("cuda")
        self.scaler = torch.amp.GradScaler("cuda") if fp16_cuda else None

    def _restore(self, state: dict) -> None:
        self.opt.load_state_dict(state["optimizer"])
        self.sched.load_state_dict(state["scheduler"])
        self.step, self.losses, self.val_history = state["step"], state["losses"], state.get("val_history", [])
        self._torch.set_rng_state(state["torch_rng"])

    def autocast(self):
        import contextlib

        torch = self._torch
        if self.dtype == torch.float32:
            return contextlib.nullcontext()
        return torch.autocast(device_type="cuda" if self.device.startswith("cuda") else "cpu", dtype=self.dtype)

    def save_checkpoint(self) -> None:
        self.model.save_pretrained(self.ckpt)
        self.tokenizer.save_pretrained(self.ckpt)
        self._torch.save(
            {
                "optimizer": self.opt.state_dict(),
                "scheduler": self.sched.state_dict(),
                "step": self.step,
                "losses": self.losses,
                "val_history": self.val_history,
                "torch_rng": self._torch.get_rng_state(),
                "config": asdict(self.config),
            },
            self.ckpt / STATE_FILE,
        )

    def validate(self) -> float | None:
        return _val_loss(
            self.model, self.val_ex, self.val_batches, self.pad_id, self.device, self.autocast, self.masking
        )

    def record_val(self, value: float | None) -> None:
        self.val_history.append([self.step, value])
        if self.config.keep_best and value is not None and (self.best[0] is None or value < self.best[0]):
            self.best = [value, self.step]
            self.model.save_pretrained(self.out / "best")
            self.tokenizer.save_pretrained(self.out / "best")

    def optimizer_step(self, idx: list[int]) -> float:
        """One batch forward, backward and update; the batch's loss (synchronised, so its time is real)."""
        torch, config = self._torch, self.config
        t_step = time.perf_counter()
        ids, mask, labels = _collate(
            self.train_ex,
            idx,
            self.pad_id,
            self.device,
            self.masking and (*self.masking, config.seed * 1_000_003 + self.step),
        )
        self.tokens += sum(len(self.train_ex[i]) for i in idx)
        with self.autocast():
            loss = self.model(input_ids=ids, attention_mask=mask, labels=labels).loss
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.opt)
        else:
            loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        if self.scaler is not None:
            self.scaler.step(self.opt)
            self.scaler.update()
        else:
            self.opt.step()
        self.sched.step()
        self.opt.zero_grad(set_to_none=True)
        self.step += 1
        loss_value = float(loss.detach())
        self.train_seconds += time.perf_counter() - t_step
        self.losses.append(loss_value)
        return loss_value

    def train(self, progress: Callable[[int, int, float], None] | None, t0: float) -> None:
        """Steps until `total_steps` (a resumed run skips the batches it already took) or the time budget."""
        config = self.config
        while self.step < self.total_steps:
            epoch, skip = divmod(self.step, self.per_epoch)
            for idx in _batches(self.train_ex, config.batch_size, config.seed, epoch)[skip:]:
                if self.step >= self.total_steps:
                    break
                loss_value = self.optimizer_step(idx)
                if progress:
                    progress(self.step, self.total_steps, loss_value)
                if config.eval_every and self.step % config.eval_every == 0 and self.val_ex:
                    self.record_val(self.validate())
                if config.save_every and self.step % config.save_every == 0:
                    self.save_checkpoint()
                if config.max_seconds is not None and time.perf_counter() - t0 > config.max_seconds:
                    return

    def finish(self) -> float | None:
        """Final validation, checkpoint and weights in out; the final validation loss."""
        val = self.validate()
        if val is not None and (not self.val_history or self.val_history[-1][0] != self.step):
            self.record_val(val)
        self.save_checkpoint()
        self.model.save_pretrained(self.out)
        self.tokenizer.save_pretrained(self.out)
        return val

    def result(self, val: float | None, dropped: int, t0: float) -> TrainResult:
        losses, tokens = self.losses, self.tokens
        return TrainResult(
            out=str(self.out),
            steps=self.step,
            epochs_done=round(self.step / self.per_epoch, 3),
            train_recipes=len(self.train_pairs),
            train_rows=len(self.train_ex),
            dropped_held_out=dropped,
            val_recipes=len(self.val_ex),
            final_train_loss=(sum(losses[-20:]) / len(losses[-20:])) if losses else None,
            val_loss=val,
            val_ppl=math.exp(val) if val is not None else None,
            seconds=round(time.perf_counter() - t0, 2),
            parameters=sum(p.numel() for p in self.model.parameters()),
            tokens=tokens,
            tokens_per_s=round(tokens / self.train_seconds, 1) if self.train_seconds > 0 and tokens else None,
            best_val_loss=self.best[0],
            best_step=self.best[1],
            losses=losses,
        )


def plot_losses(losses: list[float], val_history: list, path: str | Path) -> Path:
    """Training loss per step (raw and smoothed) with validation points, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    steps = list(range(1, len(losses) + 1))
    ax.plot(steps, losses, color="#bbbbbb", linewidth=0.8, label="train (per step)")
    window = max(1, len(losses) // 50)
    if window > 1:
        smooth = [
            sum(losses[max(0, i - window + 1) : i + 1]) / len(losses[max(0, i - window + 1) : i + 1])
            for i in range(len(losses))
        ]
        ax.plot(steps, smooth, color="#1f77b4", label=f"train (mean of {window})")
    if val_history:
        ax.plot([s for s, _ in val_history], [v for _, v in val_history], "o-", color="#d62728", label="validation")
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("cross-entropy (nats/token)")
    ax.set_title("recipe LM training")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)
