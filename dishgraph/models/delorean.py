"""DeLorean decoding (Qin et al., 2020) for counterfactual recipe rewriting.

Following the counterfactual setting of the reference (qkaren/unsup_gen_for_cms_reasoning,
``counterfactual_main.py``): the *context* o1 is the new condition — here "[Target]的做法如下。" followed by
the sentences generated so far — and the *original ending* o2 is the base recipe, rewritten one sentence at
a time. For each sentence:

1. initial logits: the LM teacher-forced on [o1, o2], at o2's positions;
2. backward pass (skipped on the first pass): `num_backward_iters` normalised gradient steps on the logits
   against the cross-entropy to the base sentence (step ``-stepsize * g/|g| * |logits|``);
3. forward pass: feed o1, then generate with soft inputs (softmax(logits / 0.1) · embeddings), mixing each
   step's LM logits with the current ones: ``mix_rate * lm + (1 - mix_rate) * current``; up to
   `extra_tokens` more unmixed steps let the sentence finish; greedy decoding, first sentence kept.
   Special tokens ([SEP] …) are banned within the sentence's length (a small LM would end it at once).

Defaults are those of the reference's run script (mix_rate 0.92, stepsize 0.0004, top-k 1, forward
temperature 1; the script sweeps num_passes ∈ {5, 10} and num_backward_iters ∈ {5, 8, 10, 15}: we take 5, 5)
and the sentence output is the last pass (what the reference writes before its optional BERT re-ranking,
which is not reproduced). Deviations: instances are decoded in lockstep batches with left padding (the
reference decodes one at a time, numerically the same); o1 is embedded directly instead of as one-hot
logits at temperature 1e-5 (identical up to rounding); Chinese sentence ends (。！？；) replace ". ".
"""

from __future__ import annotations

from pathlib import Path

from dishgraph.models import prompts
from dishgraph.models.gpt2 import encode_plain, load_causal_lm
from dishgraph.models.registry import register
from dishgraph.models.tokenizer import end_id, start_id
from dishgraph.task import Instance

SMALL_CONST = 1e-15


def first_sentence(text: str) -> str:
    """Text up to and including the first sentence end (after at least one character)."""
    for i, ch in enumerate(text):
        if i > 0 and ch in prompts.SENTENCE_END:
            return text[: i + 1]
    return text


@register("delorean")
class Delorean:
    """DeLorean: backward (toward the base recipe) / forward (LM under the target dish) logit refinement."""

    def __init__(
        self,
        model: str | Path | None = None,
        device: str | None = None,
        dtype: str = "float32",
        max_new_tokens: int = 512,
        seed: int = 0,
        mix_rate: float = 0.92,
        stepsize: float = 0.0004,
        num_passes: int = 5,
        num_backward_iters: int = 5,
        temperature_forward: float = 1.0,
        soft_temperature: float = 0.1,
        extra_tokens: int = 20,
        max_sentence_chars: int = 80,
    ):
        import torch

        self.lm = load_causal_lm(model, device, dtype)
        self.max_new_tokens = max_new_tokens
        self.seed = seed
        self.mix_rate, self.stepsize = mix_rate, stepsize
        self.num_passes, self.num_backward_iters = num_passes, num_backward_iters
        self.temperature_forward, self.soft_temperature = temperature_forward, soft_temperature
        self.extra_tokens, self.max_sentence_chars = extra_tokens, max_sentence_chars
        self._torch = torch

    # ------------------------------------------------------------------------------------ public API
    def generate(self, batch: list[Instance]) -> list[str]:
        torch = self._torch
        tok = self.lm.tokenizer
        torch.manual_seed(self.seed)
        sentences = [prompts.split_sentences(i.base_recipe, self.max_sentence_chars) for i in batch]
        heads = [[start_id(tok)] + encode_plain(tok, prompts.dish_prompt(i.target)) for i in batch]
        generated: list[list[int]] = [[] for _ in batch]
        texts: list[list[str]] = [[] for _ in batch]
        for r in range(max((len(s) for s in sentences), default=0)):
            rows = [b for b in range(len(batch)) if r < len(sentences[b]) and len(generated[b]) < self.max_new_tokens]
            o2 = {b: encode_plain(tok, sentences[b][r]) for b in rows}
            rows = [b for b in rows if o2[b]]
            if not rows:
                continue
            # every row decodes for the batch's longest sentence (+ extra tokens): leave room for that
            n_max = max(len(o2[b]) for b in rows)
            o1 = [self._context(heads[b], generated[b], n_max) for b in rows]
            with torch.no_grad():
                outs = self.decode_sentence(o1, [o2[b] for b in rows])
            for b, text in zip(rows, outs):
                texts[b].append(text)
                generated[b].extend(encode_plain(tok, text))
        return ["".join(t) for t in texts]

    # ------------------------------------------------------------------------------------- internals
    def _context(self, head: list[int], generated: list[int], o2_len: int) -> list[int]:
        """Prompt + generated text, cut from the left of the generated part to fit the model's positions."""
        room = self.lm.max_positions - o2_len - self.extra_tokens - len(head) - 1
        return head + (generated[-room:] if room > 0 else [])

    def decode_sentence(self, o1: list[list[int]], o2: list[list[int]]) -> list[str]:
        """One rewritten sentence per row: o1 the context so far, o2 the base sentence to stay close to."""
        torch = self._torch
        model, dev = self.lm.model, self.lm.device
        emb = model.get_input_embeddings()
        lengths = torch.tensor([len(x) for x in o2], device=dev)
        n_max = int(lengths.max())
        valid = torch.arange(n_max, device=dev)[None, :] < lengths[:, None]  # [B, N]
        target = torch.tensor([x + [0] * (n_max - len(x)) for x in o2], device=dev)

        # 1. initialisation: teacher-forced logits of the base sentence after the new context
        full = [a + b for a, b in zip(o1, o2)]
        ids, mask, pos = self._left_pad(full)
        logits = model(input_ids=ids, attention_mask=mask, position_ids=pos).logits.float()
        width = ids.shape[1]
        h = torch.zeros(len(o2), n_max, logits.shape[-1], device=dev)
        for b, n in enumerate(lengths.tolist()):
            h[b, :n] = logits[b, width - n - 1 : width - 1]

        text = [""] * len(o2)
        for t in range(self.num_passes):
            if t > 0:
                h = self._backward(h, target, valid)
            h, text = self._forward(h, o1, lengths, valid, emb)
        return text

    def _left_pad(self, seqs: list[list[int]]):
        torch = self._torch
        width = max(len(s) for s in seqs)
        pad = self.lm.tokenizer.pad_token_id
        ids = torch.tensor([[pad] * (width - len(s)) + s for s in seqs], device=self.lm.device)
        mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in seqs], device=self.lm.device)
        pos = (mask.cumsum(-1) - 1).clamp(min=0)
        return ids, mask, pos

    def _backward(self, h, target, valid):
        """Normalised gradient steps on the logits toward the base sentence (reference `backward_pass`)."""
        torch = self._torch
        h = h.detach()
        vmask = valid[..., None].float()
        acc = torch.zeros_like(h)
        for _ in range(self.num_backward_iters):
            with torch.enable_grad():  # generate() runs under no_grad; only these logits need a gradient
                delta = acc.clone().requires_grad_(True)
                pert = h + delta
                ce = torch.nn.functional.cross_entropy(pert.transpose(1, 2), target, reduction="none")  # [B, N]
                loss = ((ce * valid).sum(1) / valid.sum(1)).sum()  # per-row mean, rows independent
                (grad,) = torch.autograd.grad(loss, delta)
            grad = grad * vmask
            g_norm = grad.flatten(1).norm(dim=1) + SMALL_CONST
            l_norm = (pert.detach() * vmask).flatten(1).norm(dim=1)
            acc = acc - self.stepsize * grad / g_norm[:, None, None] * l_norm[:, None, None]
        return h + acc

    def _forward(self, h, o1, lengths, valid, emb):
        """Soft-input generation mixing LM logits with `h`; returns the mixed logits and first sentences."""
        torch = self._torch
        model, tok = self.lm.model, self.lm.tokenizer
        n_max = h.shape[1]
        steps = n_max + self.extra_tokens
        ids, mask, pos = self._left_pad(o1)
        out = model(input_ids=ids[:, :-1], attention_mask=mask[:, :-1], position_ids=pos[:, :-1], use_cache=True)
        past, cur_mask, next_pos = out.past_key_values, mask, pos[:, -1:]
        inputs = emb(ids[:, -1:])
        mixed, chosen = [], []
        banned = torch.zeros(h.shape[-1], dtype=torch.bool, device=h.device)
        banned[[t for t in tok.all_special_ids if t < h.shape[-1]]] = True
        for i in range(steps):
            out = model(
                inputs_embeds=inputs,
                attention_mask=cur_mask,
                position_ids=next_pos,
                past_key_values=past,
                use_cache=True,
            )
            past = out.past_key_values
            lm_logits = out.logits[:, -1].float() / self.temperature_forward
            if i < n_max:
                mix = self.mix_rate * lm_logits + (1 - self.mix_rate) * h[:, i]
                step_logits = torch.where(valid[:, i : i + 1], mix, lm_logits)
                mixed.append(step_logits)  # kept finite: the backward pass normalises by their norm
                # no end-of-text (or other special token) inside a rewritten sentence: a small LM puts
                # [SEP] first after "。", which would end every sentence before it starts
                step_logits = step_logits.masked_fill(banned[None, :] & valid[:, i : i + 1], float("-inf"))
            else:
                step_logits = lm_logits
            chosen.append(step_logits.argmax(-1))
            probs = torch.softmax(step_logits / self.soft_temperature, dim=-1).to(emb.weight.dtype)
            inputs = (probs @ emb.weight)[:, None, :]
            cur_mask = torch.cat([cur_mask, torch.ones_like(cur_mask[:, :1])], dim=1)
            next_pos = next_pos + 1
        chosen_ids = torch.stack(chosen, dim=1).tolist()
        eos = end_id(tok)
        texts = []
        for b, n in enumerate(lengths.tolist()):
            row = chosen_ids[b][: n + self.extra_tokens]
            if eos in row:
                row = row[: row.index(eos)]
            texts.append(first_sentence(prompts.clean_generated(tok.decode(row, skip_special_tokens=True))))
        return torch.stack(mixed, dim=1), texts
