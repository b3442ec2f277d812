"""EduCat (Chen et al., AAAI 2022, "Unsupervised Editing for Counterfactual Stories") for recipes.

MCMC editing of the base recipe toward the target dish, one sentence at a time, after the reference
(jiangjiechen/EDUCAT, ``src/counterfactual_rewrite.py``, ``stationary.py``, ``config.py``), with
premise = "", initial = "[Base]的做法如下。" + original sentences so far, counterfactual =
"[Target]的做法如下。" + edited sentences so far, ending = the current base sentence:

* conflict detection (``--causal_token_finding``): the position to edit is drawn from
  softmax_i( p(x_i | initial, x_<i) / p(x_i | counterfactual, x_<i) ) — tokens the base context explains
  better than the target context;
* proposal: replace / insert / delete (probabilities 0.34 / 0.33 / 0.33), the new token sampled from the
  masked LM's top-`search_size` (renormalised); the last token can only be replaced;
* target: fluency p(x, [SEP] | counterfactual) × coherence sigmoid(p(x | cf) / p(x | initial))
  (``--coherence_type lm``), accepted with Metropolis–Hastings ratio Q(x|x')/Q(x'|x) · (π'/π)^(1/0.95^⌊t/5⌋)
  and only if π' > threshold · π;
* output: the best-scoring distinct accepted state after the burn-in (`drop_time`), else the final state.

Defaults are the reference's config.py (sample_time 100, drop_time 60, search_size 100, threshold 0.1,
annealing 0.95, min_length 2, step_size 1, seed 1111) with the README's causal finding and LM coherence.
Deviations: scores are kept in log space (the reference multiplies raw probabilities, which underflow to 0
on recipe-length text and then accept everything); the masked LM sees the counterfactual context and
sentence through a 100-token window like the reference's MAX_LEN, but as ids shared with the causal LM
(both models must have the same vocabulary — true for uer/gpt2-chinese-* and bert-base-chinese, and for
the tiny test models); the reference's min_length guard, which switches a delete to replace/insert after
the sentence was already masked for deletion, is applied before masking; chains of a batch run in
lockstep (one batched MLM call and one batched LM call per iteration), each with its own RNG seeded by
(seed, instance index) so results do not depend on batching.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dishgraph.models import prompts
from dishgraph.models.gpt2 import encode_plain, load_causal_lm, torch_dtype
from dishgraph.models.registry import register
from dishgraph.models.tokenizer import end_id, start_id
from dishgraph.task import Instance
from dishgraph.torch_device import resolve_device

REPLACE, INSERT, DELETE = 0, 1, 2


@dataclass
class _Chain:
    """One instance's MCMC state for its current sentence."""

    rng: np.random.Generator
    cf_ctx: list[int]  # LM ids: [CLS] + target intro + edited sentences so far
    init_ctx: list[int]  # LM ids: [CLS] + base intro + original sentences so far
    ending: list[int] = field(default_factory=list)
    score: float = -math.inf  # log π(ending)
    tok_cf: np.ndarray | None = None  # per-token log p under the counterfactual context
    tok_init: np.ndarray | None = None  # … under the initial context
    outputs: dict = field(default_factory=dict)  # tuple(ending) -> log π, accepted after burn-in
    # the pending proposal
    proposal: list[int] | None = None
    log_q_ratio: float = 0.0  # log Q(x|x') - log Q(x'|x)
    action: int = REPLACE
    pos: int = 0


@register("educat")
class EduCat:
    """EduCat: MCMC token edits of the base recipe (conflict detection + MLM proposals + MH acceptance)."""

    def __init__(
        self,
        model: str | Path | None = None,
        mlm: str | Path | None = None,
        device: str | None = None,
        dtype: str = "float32",
        seed: int = 1111,
        sample_time: int = 100,
        drop_time: int = 60,
        search_size: int = 100,
        threshold: float = 0.1,
        annealing_parameter: float = 0.95,
        min_length: int = 2,
        action_prob: tuple[float, float, float] = (0.34, 0.33, 0.33),
        coherence_type: str = "lm",
        causal_token_finding: bool = True,
        mlm_window: int = 100,
        max_sentence_chars: int = 80,
    ):
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        if coherence_type not in ("lm", "null"):
            raise ValueError(f"coherence_type must be 'lm' or 'null', got {coherence_type!r}")
        if mlm is None:
            raise ValueError("EduCat needs a masked LM (--mlm DIR_OR_HUB_ID) sharing the causal LM's vocabulary")
        self.lm = load_causal_lm(model, device, dtype)
        self.mlm_tokenizer = AutoTokenizer.from_pretrained(str(mlm))
        if self.mlm_tokenizer.get_vocab() != self.lm.tokenizer.get_vocab():
            raise ValueError(
                f"masked LM {mlm} and causal LM {model} have different vocabularies; EduCat "
                "scores MLM proposals with the causal LM, so they must share one"
            )
        self.mlm = (
            AutoModelForMaskedLM.from_pretrained(str(mlm), dtype=torch_dtype(dtype)).to(resolve_device(device)).eval()
        )
        self.mask_id = self.mlm_tokenizer.mask_token_id
        self.special_ids = sorted(set(self.mlm_tokenizer.all_special_ids) | set(self.lm.tokenizer.all_special_ids))
        self.mlm_positions = int(getattr(self.mlm.config, "max_position_embeddings", 512))
        self.seed, self.sample_time, self.drop_time = seed, sample_time, drop_time
        self.search_size, self.threshold = search_size, threshold
        self.annealing_parameter, self.min_length = annealing_parameter, min_length
        self.action_prob = np.asarray(action_prob, dtype=float) / float(sum(action_prob))
        self.coherence_type, self.causal_token_finding = coherence_type, causal_token_finding
        self.mlm_window, self.max_sentence_chars = min(mlm_window, self.mlm_positions - 2), max_sentence_chars

    # ------------------------------------------------------------------------------------ public API
    def generate(self, batch: list[Instance]) -> list[str]:
        import torch

        tok = self.lm.tokenizer
        sentences = [
            [encode_plain(tok, s) for s in prompts.split_sentences(i.base_recipe, self.max_sentence_chars)]
            for i in batch
        ]
        chains = [
            _Chain(
                rng=np.random.default_rng([self.seed, inst.index]),
                cf_ctx=[start_id(tok)] + encode_plain(tok, prompts.dish_prompt(inst.target)),
                init_ctx=[start_id(tok)] + encode_plain(tok, prompts.dish_prompt(inst.base)),
            )
            for inst in batch
        ]
        edited: list[list[int]] = [[] for _ in batch]
        with torch.no_grad():
            for r in range(max((len(s) for s in sentences), default=0)):
                active = [b for b in range(len(batch)) if r < len(sentences[b]) and sentences[b][r]]
                if not active:
                    continue
                for b in active:
                    chains[b].ending = list(sentences[b][r])
                    chains[b].outputs = {}
                self._rescore([chains[b] for b in active])
                for it in range(self.sample_time):
                    self._step([chains[b] for b in active], it)
                for b in active:
                    c = chains[b]
                    best = self._best(c)
                    edited[b].extend(best)
                    c.cf_ctx = c.cf_ctx + best
                    c.init_ctx = c.init_ctx + sentences[b][r]
        return [prompts.clean_generated(tok.decode(e, skip_special_tokens=True)) for e in edited]

    # ------------------------------------------------------------------------------------- internals
    def _best(self, c: _Chain) -> list[int]:
        long_enough = {k: v for k, v in c.outputs.items() if len(k) >= self.min_length}
        pool = long_enough or c.outputs
        if not pool:
            return c.ending
        return list(max(pool.items(), key=lambda kv: kv[1])[0])

    def _anneal(self, it: int) -> float:
        if self.annealing_parameter >= 1:
            return 1.0
        return 1.0 / self.annealing_parameter ** math.floor(it / 5)

    def _rescore(self, chains: list[_Chain]) -> None:
        """Score each chain's current ending (log π and per-token log-probs under both contexts)."""
        for c, (score, tok_cf, tok_init) in zip(chains, self._score([(c, c.ending) for c in chains])):
            c.score, c.tok_cf, c.tok_init = score, tok_cf, tok_init

    def _score(self, items: list[tuple[_Chain, list[int]]]):
        """log π(x) = log p(x,[SEP] | cf) + log sigmoid(p(x|cf)/p(x|init)), with per-token log-probs."""
        eos = end_id(self.lm.tokenizer)
        room = self.lm.max_positions - 1
        rows = []
        for c, x in items:
            cf = self._fit(c.cf_ctx, len(x) + 1, room)
            init = self._fit(c.init_ctx, len(x), room)
            rows.append((cf, x + [eos]))
            rows.append((init, x))
        logps = self._continuation_logprobs(rows)
        out = []
        for k in range(len(items)):
            lp_cf, lp_init = logps[2 * k], logps[2 * k + 1]
            fluency = float(lp_cf.sum())
            score = fluency
            if self.coherence_type == "lm":
                delta = float(lp_cf[:-1].sum() - lp_init.sum())
                ratio = math.exp(min(delta, 50.0))
                score += -math.log1p(math.exp(-ratio))  # log sigmoid(ratio)
            out.append((score, lp_cf[:-1], lp_init))
        return out

    @staticmethod
    def _fit(ctx: list[int], cont_len: int, room: int) -> list[int]:
        keep = max(1, room - cont_len)
        return ctx if len(ctx) <= keep else ctx[:1] + ctx[len(ctx) - keep + 1 :]

    def _continuation_logprobs(self, rows: list[tuple[list[int], list[int]]]) -> list[np.ndarray]:
        """log p(cont_j | ctx, cont_<j) for each (ctx, cont), one right-padded forward pass."""
        import torch

        seqs = [ctx + cont for ctx, cont in rows]
        width = max(len(s) for s in seqs)
        pad = self.lm.tokenizer.pad_token_id
        dev = self.lm.device
        ids = torch.tensor([s + [pad] * (width - len(s)) for s in seqs], device=dev)
        mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs], device=dev)
        logits = self.lm.model(input_ids=ids, attention_mask=mask).logits
        out = []
        for b, (ctx, cont) in enumerate(rows):
            start = len(ctx) - 1
            lp = torch.log_softmax(logits[b, start : start + len(cont)].float(), dim=-1)
            tgt = torch.tensor(cont, device=dev)
            out.append(lp.gather(1, tgt[:, None])[:, 0].cpu().numpy())
        return out

    def _pick_position(self, c: _Chain) -> int:
        n = len(c.ending)
        if n == 1:
            return 0
        if not self.causal_token_finding:
            return int(c.rng.integers(n))
        ratio = np.exp(c.tok_init - c.tok_cf)  # p(x_i | initial) / p(x_i | counterfactual)
        ratio = np.minimum(ratio, 700.0)
        w = np.exp(ratio - ratio.max())
        return int(c.rng.choice(n, p=w / w.sum()))

    def _mlm_input(self, c: _Chain, masked_ending: list[int], mask_at: int) -> tuple[list[int], int]:
        """[CLS] window-of(context body + masked sentence) [SEP] and the mask's index in it."""
        body = c.cf_ctx[1:] + masked_ending
        m = len(c.cf_ctx) - 1 + mask_at
        w = self.mlm_window
        lo = 0 if m < w else m - w // 2
        window = body[lo : lo + w]
        return [self.mlm_tokenizer.cls_token_id] + window + [self.mlm_tokenizer.sep_token_id], m - lo + 1

    def _step(self, chains: list[_Chain], it: int) -> None:
        import torch

        # 1. choose position and action, build the masked input for the MLM
        mlm_rows = []
        for c in chains:
            n = len(c.ending)
            c.pos = self._pick_position(c)
            c.action = int(c.rng.choice(3, p=self.action_prob))
            if c.action == DELETE and n <= self.min_length:
                c.action = int(c.rng.choice([REPLACE, INSERT], p=[0.8, 0.2]))  # avoid over-deleting
            if c.pos == n - 1:
                c.action = REPLACE  # the sentence end can only be replaced
            if c.action == INSERT:
                masked = c.ending[: c.pos] + [self.mask_id] + c.ending[c.pos :]
            else:  # replace, or delete (masking in place gives the reverse insertion's proposal)
                masked = c.ending[: c.pos] + [self.mask_id] + c.ending[c.pos + 1 :]
            mlm_rows.append(self._mlm_input(c, masked, c.pos))

        # 2. one batched MLM call: proposal distributions at the masked positions
        width = max(len(r) for r, _ in mlm_rows)
        pad = self.mlm_tokenizer.pad_token_id
        dev = self.mlm.device
        ids = torch.tensor([r + [pad] * (width - len(r)) for r, _ in mlm_rows], device=dev)
        mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r, _ in mlm_rows], device=dev)
        logits = self.mlm(input_ids=ids, attention_mask=mask).logits
        at = torch.tensor([m for _, m in mlm_rows], device=dev)
        probs = torch.softmax(logits[torch.arange(len(chains), device=dev), at].float(), dim=-1)
        probs[:, self.special_ids] = 0.0
        k = min(self.search_size, probs.shape[-1] - len(self.special_ids))
        top_p, top_i = probs.topk(k, dim=-1)
        top_p, top_i, probs = top_p.cpu().numpy(), top_i.cpu().numpy(), probs.cpu().numpy()

        # 3. proposals with their proposal-probability ratios
        for j, c in enumerate(chains):
            cand, p = list(top_i[j]), list(top_p[j])
            old = c.ending[c.pos]
            if c.action != INSERT and old not in cand:
                cand.append(old)
                p.append(probs[j, old])
            p = np.asarray(p, dtype=float)
            p = p / p.sum() if p.sum() > 0 else np.full(len(p), 1.0 / len(p))
            if c.action == DELETE:
                c.proposal = c.ending[: c.pos] + c.ending[c.pos + 1 :]
                c.log_q_ratio = math.log(p[cand.index(old)] + 1e-30)
                continue
            choice = int(c.rng.choice(len(cand), p=p))
            new_tok = int(cand[choice])
            if c.action == REPLACE:
                c.proposal = c.ending[: c.pos] + [new_tok] + c.ending[c.pos + 1 :]
                c.log_q_ratio = math.log(p[cand.index(old)] + 1e-30) - math.log(p[choice] + 1e-30)
            else:
                c.proposal = c.ending[: c.pos] + [new_tok] + c.ending[c.pos :]
                c.log_q_ratio = -math.log(p[choice] + 1e-30)

        # 4. one batched LM call: target scores; Metropolis–Hastings with annealing and the threshold
        scored = self._score([(c, c.proposal) for c in chains])
        anneal = self._anneal(it)
        for c, (score, tok_cf, tok_init) in zip(chains, scored):
            log_alpha = min(0.0, c.log_q_ratio + (score - c.score) * anneal)
            accept = c.rng.random() < math.exp(log_alpha) and score > c.score + math.log(self.threshold)
            if not accept:
                continue
            if c.proposal != c.ending and it > self.drop_time:
                c.outputs.setdefault(tuple(c.proposal), score)
            c.ending, c.score, c.tok_cf, c.tok_init = c.proposal, score, tok_cf, tok_init
