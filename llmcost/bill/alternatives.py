"""Train, fine-tune, distil or retrieve? The bill of each route to a stated goal.

"Not every project needs to pre-train the largest model from scratch: many needs can be met by
prompting, retrieval augmentation, fine-tuning, quantisation or distillation." This module
prices each route to one goal (a domain, a quality bar in words, a serving volume) with the
ledger's own lines, so that every route is priced the way the bill prices a run:

================================  ===========================================================
route                             one-off cost (ledger line)              + lifetime serving
================================  ===========================================================
pre-train from scratch            ``compute.*`` of the scenario (final run, failures,
                                  exploratory runs) + ``post.sft``        base requests
continued pre-training            ``post.cpt`` + ``post.sft``             base requests
full fine-tune (SFT)              ``post.sft``                            base requests
LoRA fine-tune                    ``post.lora`` (same tokens as SFT)      base requests
distillation                      ``data.synthetic`` (the teacher's generation priced as
                                  served tokens) + ``post.sft`` of the student on them
                                                                          base requests
retrieval augmentation (RAG)      the index: corpus tokens through ``index_model`` priced as
                                  served input tokens                     longer prompts
prompt engineering                none                                    longer prompts
================================  ===========================================================

Serving is ``scaling.reference_serving_cost`` (``inference.serving_cost``, notebook 05) of the
scenario's model with its ``serve_`` keys at the bill's GPU-hour price:
USD = requests × (P·$/M_in + R·$/M_out)/10⁶, with P the prompt (longer by the retrieved or
few-shot tokens for the last two routes, priced at that longer prompt: the KV cache grows and the
batch shrinks) and R the output. The roofline is an upper bound on throughput, so serving
amounts are lower bounds (engines run slower by the measured range ``ledger.engine_gap`` gives).

What is not priced, and says so: the people who curate data and write prompts, the vector store
and retrieval service of RAG, serving many LoRA adapters, evaluation of each route, and above all
**quality**: the routes do not reach the same quality and the workbook has no model of task
quality, so each route states in words what it cannot do (``ROUTE_LIMITS``). Compare bills of
routes that can meet the goal's quality bar, not bills alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..core.catalog import SCENARIO_DIR, as_accelerator, as_model
from ..core.hardware import DoesNotFit
from ..core.units import as_array
from ..laws.scaling import reference_serving_cost
from .ledger import build_ledger, engine_gap, post_training_only
from .scenario import load_scenario, point_scenario

#: What each route cannot do, in words (the reason a cheaper route may not be an option).
ROUTE_LIMITS = {
    "pre-train from scratch": "Nothing in principle, but a capable model needs trillions of "
    "tokens of data (this route prices the scenario's own run, whatever its size) and a team "
    "that has trained models before, and it still needs post-training (SFT, preference "
    "tuning) to follow instructions.",
    "continued pre-training": "Needs an open base model whose licence allows it and a large "
    "domain corpus; can make the model forget general skills (catastrophic forgetting) unless "
    "general data is mixed back in; can extend the context length (a long-context stage: Fu et "
    "al. 2024, arXiv:2402.10171, reach 128K tokens with 0.5-5B tokens of continued "
    "pre-training) but cannot change the architecture or tokenizer cheaply.",
    "full fine-tune (SFT)": "Teaches format, style and task behaviour from labelled examples; "
    "adds little new knowledge, can overwrite general skills, and each variant is a full copy "
    "of the weights to store and serve.",
    "LoRA fine-tune": "Like SFT with a few million trainable parameters: cheaper to train and "
    "store, but a low-rank update learns less than full fine-tuning on tasks far from the base "
    "model; serving many adapters needs an engine that batches them.",
    "distillation": "The student can at best approach the teacher on the distribution it was "
    "taught; needs a teacher whose licence allows training on its outputs; quality falls off "
    "outside the generated data.",
    "retrieval augmentation (RAG)": "Adds facts the model can quote from the retrieved text, "
    "kept current without retraining; cannot teach a skill or a style, fails when retrieval "
    "misses, and every request pays for the longer prompt and the retrieval latency.",
    "prompt engineering": "No training at all: limited by what the base model already knows "
    "and by the context window; every request pays for the longer prompt.",
}


@dataclass(frozen=True)
class Goal:
    """A stated goal: what the model is for, the quality it must reach (in words: the workbook
    has no model of task quality) and the work each route would need. Every token count is an
    assumption of the goal, the caller's to state.

    Parameters
    ----------
    domain, quality_bar : str
        The goal in words.
    requests_lifetime : float or None
        Requests served over the model's life; None: the scenario's
        ``inference_tokens_lifetime`` ÷ (prompt + output tokens per request).
    cpt_tokens : float
        Domain tokens of continued pre-training.
    sft_tokens : float
        Tokens of supervised fine-tuning examples (also the LoRA route's).
    lora_rank : int
        LoRA rank.
    teacher : str
        Catalogue model that generates the distillation data.
    teacher_weight_dtype : str
        Its serving weight precision (default fp8: Llama 3.1 405B's BF16 weights do not fit one
        8-GPU H100 node; Meta serve it in FP8, Llama 3 paper arXiv:2407.21783 §6.2).
    distil_tokens : float
        Tokens the teacher generates and the student trains on.
    rag_corpus_tokens : float
        Tokens of the document collection to index.
    rag_prompt_tokens : float
        Retrieved tokens added to every prompt.
    index_model : str
        Catalogue model whose forward pass stands in for the embedding model of the index.
    prompt_extra_tokens : float
        Instructions and examples added to every prompt by prompt engineering.
    """

    domain: str = "a domain assistant (example goal)"
    quality_bar: str = "answers a domain expert accepts (not modelled: stated in words)"
    requests_lifetime: float | None = None
    cpt_tokens: float = 20e9
    sft_tokens: float = 100e6
    lora_rank: int = 16
    teacher: str = "llama-3.1-405b"
    teacher_weight_dtype: str = "fp8"
    distil_tokens: float = 1e9
    rag_corpus_tokens: float = 1e9
    rag_prompt_tokens: float = 2000.0
    index_model: str = "opt-1.3b"
    prompt_extra_tokens: float = 1000.0

    def __post_init__(self):
        for f in ("domain", "quality_bar", "teacher", "index_model", "teacher_weight_dtype"):
            v = getattr(self, f)
            if not isinstance(v, str) or not v:
                raise ValueError(f"Goal.{f}={v!r} must be a non-empty string")
        for f in ("cpt_tokens", "sft_tokens", "distil_tokens", "rag_corpus_tokens"):
            as_array(getattr(self, f), f"Goal.{f}", positive=True)
        for f in ("rag_prompt_tokens", "prompt_extra_tokens"):
            as_array(getattr(self, f), f"Goal.{f}", nonnegative=True, integer=True)
        as_array(self.lora_rank, "Goal.lora_rank", positive=True, integer=True)
        if self.requests_lifetime is not None:
            as_array(self.requests_lifetime, "Goal.requests_lifetime", nonnegative=True)
        as_model(self.teacher, "Goal.teacher")
        as_model(self.index_model, "Goal.index_model")


def _serving(s, spec, gpu, price, prompt, output):
    return reference_serving_cost(spec, gpu, price, int(prompt), int(output),
                                  tp=s.get("serve_tp", 0) or 0, batch=s.get("serve_batch", 0) or 0,
                                  weight_dtypes=(s.get("serve_weight_dtype", "bf16"),),
                                  kv_dtype=s.get("serve_kv_dtype", "bf16"),
                                  occupancy=s.get("serve_occupancy", 0.9),
                                  max_tpot_s=s.get("serve_max_tpot_s"))


def _per_request(c) -> float:
    return (c.prompt_tokens * c.usd_per_m_input + c.output_tokens * c.usd_per_m_output) / 1e6


def price_routes(scenario: dict, goal: Goal | None = None) -> pd.DataFrame:
    """The bill of each route to ``goal`` from the scenario's ledger (module docstring).

    Returns
    -------
    DataFrame, one row per route: ``route``, ``one_off_usd``, ``serving_usd`` (lifetime),
    ``total_usd`` (NaN where a route is not modelled for the model, e.g. LoRA on MLA
    attention, with the reason in ``how``), ``serving_usd_per_request``, ``requests_lifetime``, ``how`` (the ledger
    lines and figures behind the amount), ``cannot_do`` (``ROUTE_LIMITS``) and
    ``not_priced`` (what the amount leaves out). ``.attrs``: ``goal``, ``engine_gap`` (the
    factor by which served tokens can cost more than the roofline's price).

    Raises
    ------
    ValueError
        A bad goal (``Goal`` names the field) or a scenario the ledger refuses.
    """
    goal = Goal() if goal is None else goal
    if not isinstance(goal, Goal):
        raise ValueError(f"goal={goal!r} must be an alternatives.Goal")
    b = build_ledger({**scenario, "ledger_cpt_tokens": goal.cpt_tokens,
                      "ledger_sft_tokens": goal.sft_tokens})
    lora, lora_how = _lora_route(scenario, goal)
    distil, distil_how = _distil_route(scenario, goal)
    fig = b.figures
    # serving keys and lifetime demand: the scenario's, else the default scenario's
    s = {**load_scenario(SCENARIO_DIR / "default.yaml"), **point_scenario(dict(scenario))}
    # the scenario's model as given (a catalogue name or a config.json path): the bill's
    # figure is only its name, which a config file's model does not resolve from
    spec, gpu = as_model(b.scenario["model"]), as_accelerator(fig["accelerator"])
    price = float(fig["price_usd_per_gpu_hour"])
    p, r = int(s.get("inference_prompt_tokens", 1000)), int(s.get("inference_output_tokens", 250))
    if goal.requests_lifetime is None:
        requests = float(s.get("inference_tokens_lifetime", 0.0) or 0.0) / (p + r)
    else:
        requests = float(goal.requests_lifetime)
    base = _serving(s, spec, gpu, price, p, r)
    rag = _serving(s, spec, gpu, price, p + goal.rag_prompt_tokens, r)
    few = _serving(s, spec, gpu, price, p + goal.prompt_extra_tokens, r)
    index = _serving(s, as_model(goal.index_model), gpu, price, 1000, 1)
    index_usd = goal.rag_corpus_tokens * index.usd_per_m_input / 1e6

    sft, cpt = b.usd("post.sft"), b.usd("post.cpt")
    # the scenario's own bill: its exploratory line nets out the post-training it bills, so it
    # is read from the scenario as given, not from the ledger with the routes' tokens
    pre = build_ledger(scenario).usd("compute.")
    no_people = "people, data curation and evaluation of the route"
    alone = post_training_only(scenario)   # no pre-training run to price this route on
    rows = [
        ("pre-train from scratch", float("nan") if alone else pre + sft, base,
         "not priced: the scenario bills post-training alone (train_tokens: 0), so it has no "
         "pre-training run for this route; give its train_tokens to price it" if alone else
         f"compute lines of the scenario's bill (final run, failures, exploratory runs) "
         f"${pre:,.0f} + SFT ${sft:,.0f} ({goal.sft_tokens:.3g} tokens)", no_people),
        ("continued pre-training", cpt + sft, base,
         f"post.cpt ${cpt:,.0f} ({goal.cpt_tokens:.3g} domain tokens) + post.sft ${sft:,.0f}",
         no_people + "; the licence of the base model"),
        ("full fine-tune (SFT)", sft, base,
         f"post.sft: {b.line('post.sft').how}", no_people),
        ("LoRA fine-tune", lora, base, lora_how, no_people + "; serving many adapters"),
        ("distillation", distil, base, distil_how, no_people),
        ("retrieval augmentation (RAG)", index_usd, rag,
         f"index: {goal.rag_corpus_tokens:.3g} tokens through {goal.index_model} at "
         f"${index.usd_per_m_input:.4g}/M input = ${index_usd:,.0f}; every prompt "
         f"{goal.rag_prompt_tokens:g} tokens longer", "the vector store and retrieval service; "
         + no_people),
        ("prompt engineering", 0.0, few,
         f"no training; every prompt {goal.prompt_extra_tokens:g} tokens longer",
         "the people who write and test the prompts"),
    ]
    return _route_frame(rows, requests, goal, spec.name)


def _distil_route(scenario: dict, goal: Goal) -> tuple:
    """(USD, how) of the distillation route: the ledger's ``data.synthetic`` line (the teacher's
    ``distil_tokens`` priced as served tokens on the scenario's GPUs) plus the student's
    ``post.sft`` on them; NaN and "not priced" when the teacher cannot be served on one
    scale-up domain of the scenario's GPU (``inference.choose_serving_tp``: e.g. Llama 3.1 405B
    on 8 A100-40GB, 50.7 GB of FP8 weights per GPU at TP 8)."""
    try:
        teacher = build_ledger({**scenario, "ledger_synthetic_tokens": goal.distil_tokens,
                                "ledger_synthetic_model": goal.teacher,
                                "ledger_synthetic_usd_per_mtok": None,
                                "serve_weight_dtype": goal.teacher_weight_dtype})
    except DoesNotFit as e:   # the ledger's ScenarioDoesNotFit: the teacher fits no replica
        return float("nan"), (f"not priced: the teacher {goal.teacher} cannot be served on the "
                              f"scenario's GPUs ({str(e).split(': ', 1)[-1]})")
    student = build_ledger({**scenario, "ledger_sft_tokens": goal.distil_tokens})
    syn, stud = teacher.usd("data.synthetic"), student.usd("post.sft")
    return syn + stud, (f"data.synthetic (teacher {goal.teacher} in "
                        f"{goal.teacher_weight_dtype}, {goal.distil_tokens:.3g} tokens served) "
                        f"${syn:,.0f} + the student's SFT on them ${stud:,.0f}")


def _lora_route(scenario: dict, goal: Goal) -> tuple:
    """(USD, how) of the LoRA route: the ledger's ``post.lora`` line for the goal's SFT tokens
    at its rank (``lora.lora_gpu_hours``); NaN and "not modelled" where the ledger cannot count
    adapters (LoRA adapter counts are implemented for GQA/MHA attention only)."""
    try:
        lora_bill = build_ledger({**scenario, "ledger_lora_tokens": goal.sft_tokens,
                                  "ledger_lora_rank": goal.lora_rank})
        return lora_bill.usd("post.lora"), f"post.lora: {lora_bill.line('post.lora').how}"
    except ValueError as e:
        return float("nan"), f"not modelled: {e}"


def _route_frame(rows: list, requests: float, goal: Goal, model: str) -> pd.DataFrame:
    """The routes' table: per route, total = one-off + serving, serving = USD per request
    (``_per_request``) × lifetime requests."""
    out = []
    for route, one_off, c, how, missing in rows:
        per = _per_request(c)
        out.append({"route": route, "one_off_usd": float(one_off),
                    "serving_usd": float(per * requests), "total_usd": float(one_off
                                                                              + per * requests),
                    "serving_usd_per_request": per, "requests_lifetime": requests,
                    "prompt_tokens": c.prompt_tokens, "how": how,
                    "cannot_do": ROUTE_LIMITS[route], "not_priced": missing})
    df = pd.DataFrame(out)
    df.attrs["goal"] = goal
    df.attrs["engine_gap"] = engine_gap()
    df.attrs["model"] = model
    return df


__all__ = ["ROUTE_LIMITS", "Goal", "price_routes"]
