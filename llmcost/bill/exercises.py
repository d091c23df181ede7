"""Notebook 00's worked answers that price a change to the scenario: the change scaled to the
scenario (never one fixed figure whatever the run), priced by the ledger that priced the bill.

``long_context_exercise``: a long-context phase like Llama 3's, as a share of the scenario's
training tokens, at a length its model supports, at an MFU on the bill's own basis, said as
replacing or adding to the scenario's own long-context phase.
"""

from __future__ import annotations

import re

from dataclasses import dataclass

from ..core.catalog import as_model
from ..core.units import fmt_count, fmt_usd, with_article
from ..training.compute import model_flops_per_token
from .checks import LLAMA3_LONG_CONTEXT_MFU_RATIO, context_warning
from .ledger import Ledger, with_changes
from .scenario import point_scenario

#: Llama 3's long-context stage: "approximately 800B training tokens" (Llama Team 2024, The
#: Llama 3 Herd of Models, arXiv:2407.21783, §3.4.2), after its 8K-context pre-training on
#: 15.6T tokens (§1: "on 15.6T tokens using a context window of 8K tokens. This standard
#: pre-training stage is followed by a continued pre-training stage"): 5.13 % of that stage's
#: tokens, added to it.
LLAMA3_LONG_CONTEXT_SHARE = 800e9 / 15.6e12

#: The length Llama 3's long-context stage ends at, 128K = 131,072 tokens (§3.4.2: six stages
#: from 8K "to the final 128K context window").
LLAMA3_LONG_CONTEXT_SEQ_LEN = 131072

#: The name of a long-context phase (the scenario's own one is replaced by the example).
LONG_CONTEXT = "long-context"


@dataclass(frozen=True)
class LongContextExercise:
    """``long_context_exercise``'s answer: the example ``phase`` (None: not priced, ``why``
    says so; else ``why`` says where its length comes from), what it adds to the bill without
    a long-context phase (``added_usd``) and to the scenario's bill (``vs_bill_usd``), the
    scenario's own long-context phase it ``replaced`` (None: added) and that phase's cost in
    the bill (``own_usd``), the FLOPs per token at the phase's length over the main run's
    (``flops_ratio``), the bill's ``warning`` on that length (``checks.context_warning``), and
    the scenario's ``train_tokens``, ``seq_len`` and the bill's MFU (``bill_mfu``)."""

    phase: dict | None
    why: str
    added_usd: float = float("nan")
    vs_bill_usd: float = float("nan")
    replaced: dict | None = None
    own_usd: float = float("nan")
    flops_ratio: float = float("nan")
    warning: str | None = None
    train_tokens: float = float("nan")
    seq_len: int = 0
    bill_mfu: float = float("nan")

    def describe(self) -> str:
        """The answer in lines: the phase and where its figures come from, what it adds (and,
        replacing the scenario's own phase, against what), the FLOPs per token and the MFU on
        the bill's basis, the bill's warning on the length."""
        if self.phase is None:
            return self.why
        ph = self.phase
        head = (f"{fmt_count(ph['tokens'], 3)} tokens ({LLAMA3_LONG_CONTEXT_SHARE:.2%} of the "
                f"scenario's {fmt_count(self.train_tokens, 3)}, as Llama 3's 800B after 15.6T) at "
                f"{ph['seq_len']:,} tokens ({self.why}), MFU {ph['mfu']:.1%} (the bill's "
                f"{self.bill_mfu:.1%} × 38/41, Llama 3's Table 4, on the bill's peak)")
        if self.replaced is None:
            adds = f"in addition to the scenario's phases: adds {fmt_usd(self.added_usd)}"
        else:
            r = self.replaced
            # under a cent: the same phase, the difference float rounding (a consistency
            # audit read "the bill rises by $0.00000006" on the Llama 3.1 405B scenario)
            moves = ("is unchanged (the scenario's phase is this example)"
                     if abs(self.vs_bill_usd) < 0.005 else
                     f"{'rises' if self.vs_bill_usd >= 0 else 'falls'} by "
                     f"{fmt_usd(abs(self.vs_bill_usd))}")
            adds = (f"replaces the scenario's own {r['name']} phase ({fmt_count(r['tokens'], 3)}"
                    f" tokens at {r['seq_len']:,}: {fmt_usd(self.own_usd)} of the bill with "
                    "the lines that scale with it, such as exploration): it adds "
                    f"{fmt_usd(self.added_usd)} to the bill without that phase, so the bill "
                    f"{moves}")
        long, short = f"{ph['seq_len']:,}", f"{self.seq_len:,}"
        lines = [head, f"{adds}; {with_article(long)}-token sequence costs "
                 f"{self.flops_ratio:.2f}× the FLOPs per token of {with_article(short)}-token "
                 f"one, at MFU {ph['mfu']:.1%} against {self.bill_mfu:.1%}"]
        return "\n".join(lines + ([f"warning: {self.warning}"] if self.warning else []))


def _is_long_context(name: str) -> bool:
    """Whether a phase's name is ``LONG_CONTEXT`` in any case, with a space, hyphen or
    underscore between its words."""
    return re.sub(r"[\s_-]+", "-", str(name).strip().lower()) == LONG_CONTEXT


def _example_length(spec, seq_len: int) -> tuple:
    """(length, words) of the example phase: Llama 3's 131,072 tokens, or the model's declared
    context (``max_position_embeddings``) where shorter; (None, why) where that is no longer
    than the run's own ``seq_len``."""
    ctx = spec.max_position_embeddings
    length = min(LLAMA3_LONG_CONTEXT_SEQ_LEN, ctx) if ctx else LLAMA3_LONG_CONTEXT_SEQ_LEN
    if length <= seq_len:
        said = (f"{spec.name} declares a context of {ctx:,} tokens (max_position_embeddings)"
                if ctx and ctx < LLAMA3_LONG_CONTEXT_SEQ_LEN else
                f"Llama 3's long-context length is {LLAMA3_LONG_CONTEXT_SEQ_LEN:,} tokens")
        return None, (f"no long-context phase priced: {said}, no longer than the run's own "
                      f"{seq_len:,}-token sequences (a longer phase needs a context extension "
                      "of the model first)")
    if not ctx:
        return length, f"Llama 3's length; {spec.name} records no context beyond its pre-training"
    return length, (f"Llama 3's length, within {spec.name}'s {ctx:,}-token context"
                    if length == LLAMA3_LONG_CONTEXT_SEQ_LEN else
                    f"{spec.name}'s declared context, short of Llama 3's "
                    f"{LLAMA3_LONG_CONTEXT_SEQ_LEN:,}")


def long_context_exercise(bill: Ledger, model) -> LongContextExercise:
    """Notebook 00's exercise 2, a long-context phase scaled to the scenario of ``bill``
    (``model``: its ``ModelSpec`` or catalogue name, the scenario's model):

        tokens  = LLAMA3_LONG_CONTEXT_SHARE × train_tokens      (800B after 15.6T, §1, §3.4.2)
        seq_len = min(131,072, the model's max_position_embeddings)   (131,072 where none)
        mfu     = the bill's MFU × 38/41                         (Table 4, the bill's basis)

    (Llama Team 2024, arXiv:2407.21783). Priced as ``{"name": "long-context", ...}`` in the
    scenario's ``phases``, replacing a phase of that name the scenario gives (said so), the
    other phases kept: the phase adds the bill with it less the bill without a long-context
    phase. Not priced where the model's declared context is no longer than the run's
    ``seq_len`` (a context extension first), said so; a length beyond what the catalogue records
    for the model carries the bill's phase warning (``checks.context_warning``).

    Raises
    ------
    ValueError
        ``bill`` not a ``Ledger``; ``model`` not a model; the ledger's refusal of the changed
        scenario.
    """
    if not isinstance(bill, Ledger):
        raise ValueError(f"bill={bill!r:.60} must be a Ledger (ledger.build_ledger)")
    spec = as_model(model)
    p = point_scenario(bill.scenario)
    s = int(p["seq_len"])
    length, why = _example_length(spec, s)
    if length is None:
        return LongContextExercise(phase=None, why=why, seq_len=s)
    # the scenario's own long-context phase by its name, in any case or spelling ("Long
    # context", "long_context": a review's "Long-context" was added beside the example); not by
    # length: Llama 3.1 405B's annealing phase runs at 131,072 tokens too
    own = [ph for ph in p.get("phases") or [] if _is_long_context(ph["name"])]
    others = [ph for ph in p.get("phases") or [] if not _is_long_context(ph["name"])]
    phase = {"name": LONG_CONTEXT, "tokens": LLAMA3_LONG_CONTEXT_SHARE * p["train_tokens"],
             "seq_len": length,
             "mfu": bill.figures["mfu"] * LLAMA3_LONG_CONTEXT_MFU_RATIO}
    without, with_phase = (with_changes(bill, phases=others + extra) for extra in ([], [phase]))
    ratio = float(model_flops_per_token(spec, length)) / float(model_flops_per_token(spec, s))
    return LongContextExercise(
        phase=phase, why=why, added_usd=with_phase.total_usd - without.total_usd,
        vs_bill_usd=with_phase.total_usd - bill.total_usd, replaced=own[0] if own else None,
        own_usd=bill.total_usd - without.total_usd if own else float("nan"), flops_ratio=ratio,
        warning=context_warning(spec, length, phase=True), train_tokens=float(p["train_tokens"]),
        seq_len=s, bill_mfu=float(bill.figures["mfu"]))
