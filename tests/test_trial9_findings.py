"""What a ninth new-user trial found in the wording of the notebooks, the plan's refusals and
`llmcost estimate`, each checked against a hand derivation or the rule it names."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from _cli import scenario_refusal

sys.path.insert(0, str(Path(__file__).parent))
from _inprocess import run_in_process  # noqa: E402
from test_small_jobs import SCENARIO  # noqa: E402 (the small-jobs test's OPT-1.3B run)

ROOT = Path(__file__).resolve().parents[1]


def test_notebook_00_labels_each_flop_count_with_its_mask():
    # The trial: Step 2 printed "exact (attention, full mask): 8.568e+23" while 8.568e+23 is the
    # causal count. By hand for the notebook's defaults, Llama 2 70B (80 layers, d 8,192, 64
    # heads of 128, 8 KV heads, gated FFN 28,672, vocabulary 32,000: its config.json) at 4,096
    # tokens, D = 2e12 tokens, training = 3 × forward, 2 FLOPs per multiply-accumulate:
    #   weights    6 × 80 × (2·8192² + 2·8192·1024 + 3·8192·28672) + 6 × 8192 × 32000
    #              = 72,477,573,120 + 338,228,674,560 + 1,572,864,000 = 412,279,111,680
    #   attention  full mask 6 × 80 × 4096 × 64 × (128 + 128) = 32,212,254,720 (PaLM App. B);
    #              causal: (s+1)/2 = 2,048.5 keys on average, 16,110,059,520
    weights = 6 * 80 * (2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672) + 6 * 8192 * 32000
    full = (weights + 6 * 80 * 4096 * 64 * 256) * 2e12
    causal = (weights + 6 * 80 * 2048.5 * 64 * 256) * 2e12
    assert (full, causal) == (pytest.approx(8.8898e23, rel=1e-4), pytest.approx(8.5678e23, rel=1e-4))
    printed = run_in_process(ROOT / "notebooks" / "00_index.ipynb")
    line = next(s for s in printed.splitlines() if s.startswith("6ND: "))
    got = dict(re.findall(r"exact \(attention, (full|causal) mask[^)]*\): ([0-9.e+]+) FLOP", line))
    assert float(got["full"]) == pytest.approx(full, rel=1e-3)
    assert float(got["causal"]) == pytest.approx(causal, rel=1e-3)
    # the full-mask count is the MFU basis the bill uses (the next line)
    assert f"all pre-training phases: {full:.3e} FLOP on the MFU basis" in printed


LLAMA_70B = ("model: llama-3.1-70b\naccelerator: H100-SXM\nn_gpus: 256\ntrain_tokens: 1e12\n"
             "seq_len: 8192\nglobal_batch_tokens: 8388608\nmfu: predict\n")


def _refusal(tmp_path, text: str) -> str:
    return scenario_refusal(tmp_path, text)


def test_fixed_degrees_that_do_not_make_the_gpu_count_name_the_product_rule(tmp_path):
    # The trial: tp 8, pp 4, dp 4 on 256 GPUs was refused in terms of the global batch, advising
    # "a global batch divisible by 8 (e.g. 1,024 sequences)", the batch it already had. By hand:
    # cp is 1 when absent, so dp·tp·pp·cp = 4 × 8 × 4 × 1 = 128 ≠ 256; dp = 256 ÷ (8·4·1) = 8
    # makes it, or 128 GPUs
    msg = _refusal(tmp_path, LLAMA_70B + "tp: 8\npp: 4\ndp: 4\n")
    assert ("the plan's degrees must multiply to the GPU count (dp·tp·pp·cp must equal n_gpus), "
            "but the scenario fixes tp 8 × pp 4 × dp 4 × cp 1 = 128, not n_gpus=256; set dp: 8 "
            "(or leave dp out: it is derived as n_gpus ÷ tp·pp·cp) or n_gpus: 128") in msg
    assert "global batch divisible" not in msg
    from llmcost.training import parallel as P
    assert P.fixed_degrees_hint(256, {"tp": 8, "pp": 4, "dp": 8, "cp": 1}) == ""
    assert P.fixed_degrees_hint(256, {"tp": 8, "pp": 3}).endswith(
        "tp 8 × pp 3 = 24, which does not divide n_gpus=256; set degrees whose product divides "
        "n_gpus (0 leaves a degree to be chosen)")
    assert P.fixed_degrees_hint(256, {"tp": 8, "pp": 4}) == ""   # dp and cp still free


def test_a_micro_batch_too_large_for_the_batch_is_named(tmp_path):
    # The trial: micro_batch_size 64 with tp 8, pp 1 on 256 GPUs; the refusal never named the
    # micro-batch. By hand: 8,388,608 ÷ 8,192 = 1,024 sequences; tp·pp·cp = 8 × 1 × 1 leaves
    # dp = 256 ÷ 8 = 32, and 32 × 64 = 2,048 sequences per step > 1,024; the largest micro-batch
    # dp 32 allows is 1,024 ÷ 32 = 32
    msg = _refusal(tmp_path, LLAMA_70B + "micro_batch_size: 64\ntp: 8\npp: 1\n")
    assert "data parallelism × micro_batch_size=64 (fixed) must divide the batch" in msg
    assert "use micro_batch_size=32 (dp 32 × micro_batch_size must divide 1,024)" in msg


LONG = ("model: llama-3.1-8b\naccelerator: H100-SXM\nn_gpus: 64\ntrain_tokens: 1e12\nmfu: 0.4\n"
        "seq_len: {seq}\nglobal_batch_tokens: {batch}\n")


def test_a_sequence_too_long_to_fit_suggests_context_parallelism_when_it_fits(tmp_path):
    # The trial: a plan that did not fit advised "use more GPUs (ZeRO and recomputation were
    # already searched)" only; context parallelism (cp, absent: 1) was never searched. A 4,194,304
    # -token sequence (4 per step) on 64 H100s: the advice names cp: 0, and with it a plan fits
    # (the scenario is priced)
    from llmcost.present.report import estimate_ledger
    four_m = LONG.format(seq=4194304, batch=4 * 4194304)
    msg = _refusal(tmp_path, four_m)
    assert (": set cp: 0 to let the search choose context parallelism (cp GPUs share each "
            "4,194,304-token sequence; a plan then fits), or use more GPUs") in msg
    path = tmp_path / "cp.yaml"
    path.write_text(four_m + "cp: 0\n")
    assert estimate_ledger(path).total_usd > 0
    # 10,000,000 tokens: context parallelism does not make a plan fit either, and says so
    msg = _refusal(tmp_path, LONG.format(seq=10_000_000, batch=40_000_000))
    assert ("use more GPUs (ZeRO and recomputation were already searched; context parallelism "
            "(cp: 0) does not make a plan fit either)") in msg


def test_a_gpu_count_agrees_with_its_noun():
    # "0.2 days on 1 GPUs": llmcost.fmt_gpus says one GPU in the singular, any other count in
    # the plural with thousands separators
    import llmcost
    assert [llmcost.fmt_gpus(n) for n in (1, 2, 8, 16384)] == ["1 GPU", "2 GPUs", "8 GPUs",
                                                               "16,384 GPUs"]
    with pytest.raises(ValueError, match="n=0"):
        llmcost.fmt_gpus(0)


def test_working_backwards_prints_counts_without_an_exponent(tmp_path):
    # The trial: `--budget-usd` printed "6.645e+11 tokens" and "1.027e+10 parameters"; counts
    # are printed as the bill prints them (llmcost.fmt_count: 4 digits and a k/M/B/T suffix),
    # and "on 1 GPUs" agrees with its count. By hand for OPT-1.3B on 1 A100 at $1.50/GPU-h and
    # MFU 0.4: $100,000 is 66,667 GPU-h, × 3600 s × 312e12 FLOP/s × 0.4 = 3.0e22 FLOP, at
    # most 3.0e22 ÷ (6 × 1.3e9) = 3.8e12 tokens before goodput and the bill's other lines
    # (exploratory runs, people, storage), which take part of it: a count in T below 3.8
    from _cli import run_cli
    path = tmp_path / "opt.yaml"
    path.write_text(SCENARIO.format(n=1))
    out = run_cli("estimate", "--scenario", str(path), "--budget-usd", "1e5")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    tokens = re.search(r"tokens the budget buys: ([\d.]+)T tokens \(most train_tokens with the "
                       r"whole bill ≤ \$100,000 on 1 GPU \(", text)
    assert tokens and 0.5 < float(tokens[1]) < 3.8, text[-800:]
    assert re.search(r"compute-optimal parameters for those FLOPs: [\d.]+B parameters", text)
    assert re.search(r"with D\* = [\d.]+[kMBT] tokens", text)
    assert not re.search(r"e\+\d+ (tokens|parameters)", text)




def test_a_figure_title_drawn_without_math_keeps_its_dollars_in_the_alt_text():
    # The trial: notebook 00's bill figure, titled "... the whole bill $65.3M, P10–P90 ..."
    # with parse_math=False (drawn as written), was described "whole bill 65.3M": the
    # description dropped every "$" as if the title were math text. matplotlib's rule
    # (Text._preprocess_math): parse_math off, the text as written; else an even number of
    # unescaped $ is math (delimiters dropped), and an escaped \$ reads as $
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from llmcost.present import plots
    fig = plt.figure()
    fig.suptitle("the whole bill $65.3M, P10–P90 $60.1M–$70.2M", parse_math=False)
    assert plots.figure_description(fig) == ("Figure: the whole bill $65.3M, P10–P90 "
                                             "$60.1M–$70.2M")
    plt.close(fig)
    assert plots.read_as_text(r"at \$2.49/GPU-h for $\delta$") == r"at $2.49/GPU-h for \delta"
    assert plots.read_as_text(r"one price \$14.21") == "one price $14.21"


def test_one_catalogue_price_is_said_once():
    # The trial: "the catalogue's reserved range $14.21–$14.21". data/prices.csv holds one
    # current reserved B200 price (AWS, $14.208/GPU-h), so the claim's price verdict names
    # that price once; a range of two or more prices is still a range
    from llmcost.bill import claims
    assert claims.price_range("B200", "reserved")["n"] == 1
    c = claims.check_claim("llama-3.1-8b", 1e12, "B200", n_gpus=64, gpu_hours=2e5,
                           usd=2e5 * 14.0, pricing="reserved", left_out=False)
    assert c.price_verdict.startswith("below the catalogue's reserved price $14.21 (1 current "
                                      "reserved price of B200")
    assert "–$14.21" not in c.price_verdict
    assert claims.price_span({"low": 2.69, "high": 12.29}) == "range $2.69–$12.29"
    assert claims.price_span({"low": 14.208, "high": 14.2081}) == "price $14.21"
