"""GPT-2 (D) and GPT-2 (D+R), the CRG paper's prompting baselines, plus the causal-LM loading they share.

Both continue a prompt with a causal LM fine-tuned on recipes (`dishgraph train lm`): (D) sees only the
target dish name, (D+R) also the base recipe and an instruction to rewrite it. Prompts are batched with left
padding; the base recipe (never the frame around it) is cut from the end when the prompt would not leave
room for `max_new_tokens` within the model's context.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dishgraph.models import prompts
from dishgraph.models.registry import register
from dishgraph.models.tokenizer import end_id, ensure_lm_special_tokens, start_id
from dishgraph.task import Instance
from dishgraph.torch_device import resolve_device

DTYPES = ("float32", "bfloat16", "float16")


def torch_dtype(name: str):
    import torch

    if name not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {name!r}")
    return getattr(torch, name)


@dataclass
class LoadedLM:
    model: object
    tokenizer: object
    device: str

    @property
    def max_positions(self) -> int:
        cfg = self.model.config
        return int(getattr(cfg, "n_positions", None) or getattr(cfg, "max_position_embeddings", 1024))


def load_causal_lm(model: str | Path, device: str | None = None, dtype: str = "float32") -> LoadedLM:
    """A causal LM and its tokenizer from a local directory or hub id, in eval mode with frozen weights."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if model is None:
        raise ValueError("no model given: pass --model DIR (a `dishgraph train lm` output) or a hub id")
    device = resolve_device(device)
    tokenizer = AutoTokenizer.from_pretrained(str(model))
    ensure_lm_special_tokens(tokenizer)
    lm = AutoModelForCausalLM.from_pretrained(str(model), dtype=torch_dtype(dtype)).to(device).eval()
    for p in lm.parameters():
        p.requires_grad_(False)
    return LoadedLM(lm, tokenizer, device)


def encode_plain(tokenizer, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False)


class _PromptedGPT2:
    """Shared machinery: build one prompt per instance, generate continuations in one padded batch."""

    def __init__(
        self,
        model: str | Path | None = None,
        device: str | None = None,
        dtype: str = "float32",
        max_new_tokens: int = 256,
        min_new_tokens: int = 8,
        seed: int = 0,
        do_sample: bool = True,
        top_k: int = 0,
        top_p: float = 0.9,
        temperature: float = 1.0,
        repetition_penalty: float = 1.0,
    ):
        self.lm = load_causal_lm(model, device, dtype)
        self.max_new_tokens = max_new_tokens
        # an end-of-text right after the prompt (likely for a small LM: "。" often precedes [SEP]) would
        # make an empty recipe; HF's min_new_tokens masks [SEP] for the first few tokens
        self.min_new_tokens = min(min_new_tokens, max_new_tokens)
        self.seed = seed
        self.gen_kwargs = dict(
            do_sample=do_sample,
            top_k=top_k or None,
            top_p=top_p,
            temperature=temperature,
            repetition_penalty=repetition_penalty,
        )
        if not do_sample:
            self.gen_kwargs = dict(do_sample=False, repetition_penalty=repetition_penalty)
        self._calls = 0

    def prompt_ids(self, inst: Instance, budget: int) -> list[int]:
        raise NotImplementedError

    def generate(self, batch: list[Instance]) -> list[str]:
        import torch

        tok, model = self.lm.tokenizer, self.lm.model
        budget = self.lm.max_positions - self.max_new_tokens
        if budget < 8:
            raise ValueError(
                f"max_new_tokens={self.max_new_tokens} leaves no room for a prompt in a "
                f"{self.lm.max_positions}-token model"
            )
        ids = [self.prompt_ids(inst, budget) for inst in batch]
        width = max(len(x) for x in ids)
        pad = tok.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(x)) + x for x in ids], device=self.lm.device)
        attention = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in ids], device=self.lm.device)
        # Seed per call so a resumed or re-batched run reproduces each batch on its own.
        torch.manual_seed(self.seed + self._calls)
        self._calls += 1
        with torch.no_grad():
            out = model.generate(
                input_ids=input_ids,
                attention_mask=attention,
                max_new_tokens=self.max_new_tokens,
                min_new_tokens=self.min_new_tokens,
                eos_token_id=end_id(tok),
                pad_token_id=pad,
                **self.gen_kwargs,
            )
        return [self._decode(row[width:].tolist()) for row in out]

    def _decode(self, new_ids: list[int]) -> str:
        eos = end_id(self.lm.tokenizer)
        if eos in new_ids:
            new_ids = new_ids[: new_ids.index(eos)]
        return prompts.clean_generated(self.lm.tokenizer.decode(new_ids, skip_special_tokens=True))


@register("gpt2-d")
class GPT2DishPrompt(_PromptedGPT2):
    """GPT-2 (D): continue "[Target]的做法如下。" with the recipe LM."""

    def prompt_ids(self, inst: Instance, budget: int) -> list[int]:
        tok = self.lm.tokenizer
        return [start_id(tok)] + encode_plain(tok, prompts.dish_prompt(inst.target))[: budget - 1]


@register("gpt2-dr")
class GPT2DishRecipePrompt(_PromptedGPT2):
    """GPT-2 (D+R): "请根据[Base]的做法改写[Target]的做法。[Base Recipe][Target]的做法如下。" continued."""

    def prompt_ids(self, inst: Instance, budget: int) -> list[int]:
        tok = self.lm.tokenizer
        head, tail = prompts.rewrite_prompt_parts(inst.base, inst.target)
        head_ids, tail_ids = encode_plain(tok, head), encode_plain(tok, tail)
        room = budget - 1 - len(head_ids) - len(tail_ids)
        recipe_ids = encode_plain(tok, inst.base_recipe)[: max(0, room)]
        return [start_id(tok)] + head_ids + recipe_ids + tail_ids
