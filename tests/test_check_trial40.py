"""`llmcost check` after a new-user trial: a scenario on reserved H200 with no price of its own
was priced by `estimate` at the on-demand median (the catalogue's reserved median lies above it:
``core.catalog.discount_price_cap``) and by `check` at that reserved median, so the two
commands gave two costs for one file.

The rows (data/prices.csv, current): H200 reserved AWS 2026-10 $7.89 (an EC2 Capacity Block);
on-demand CoreWeave 2026-09 $6.30 and Hyperstack 2026-08 $3.99: median (6.30 + 3.99) / 2 =
$5.145 (hand derivation)."""

import re

import pytest

from llmcost.bill import claims, ledger
from llmcost.core.catalog import current_prices

RUN = {"model": "deepseek-v3", "accelerator": "H200", "n_gpus": 512, "train_tokens": 2e12,
       "seq_len": 4096, "mfu": 0.3, "dtype": "fp8", "pricing": "reserved"}


def test_check_prices_a_reserved_run_at_the_bills_price():
    od = current_prices("H200", "on_demand")["price_usd_per_gpu_hour"]
    rs = current_prices("H200", "reserved")["price_usd_per_gpu_hour"]
    assert rs.median() > od.median()  # the case: a listed block above on-demand
    assert od.median() == pytest.approx((6.30 + 3.99) / 2, abs=0.005)
    pr = claims.price_range("H200", "reserved")
    assert pr["median"] == pytest.approx(rs.median()) and pr["default"] == od.median()
    bill = ledger.build_ledger(RUN)
    assert bill.figures["price_usd_per_gpu_hour"] == pytest.approx(pr["default"])  # estimate
    c = claims.check_claim("deepseek-v3", 2e12, "H200", n_gpus=512, mfu=0.3, dtype="fp8",
                           seq_len=4096, pricing="reserved")
    text = " ".join(c.describe().split())
    assert (f"at the bill's reserved price, ${od.median():.2f}/GPU-h (the on-demand median: "
            f"the catalogue's reserved median, ${rs.median():.2f}, lies above it), the hours "
            "cost") in text
    # an on-demand run keeps the catalogue median, said so
    c = claims.check_claim("deepseek-v3", 2e12, "H200", n_gpus=512, mfu=0.3, dtype="fp8",
                           seq_len=4096)
    assert f"at the catalogue median, ${od.median():.2f}/GPU-h, the hours cost" in \
        " ".join(c.describe().split())


def test_check_says_why_its_ranges_differ_from_estimates():
    # check draws the exploratory fraction alone (the claim's MFU and price are the claim);
    # estimate's headline draws spread a point MFU too, so its P10-P90 differ: said, not hidden
    c = claims.check_claim("deepseek-v3", 2e12, "H200", n_gpus=512, mfu=0.3, dtype="fp8",
                           seq_len=4096)
    text = " ".join(c.describe().split())
    assert "the claim's MFU and price held at the claim's" in text
    assert "(the P10–P90 of `llmcost estimate` draw the scenario's MFU and price too" in text
    assert "draws fall inside it: the 1.6% of the log-normal below 0 is left out" in text


def test_a_bound_above_the_ceiling_says_the_ceiling_alone_judges():
    # Llama 3.1 70B in BF16 on GB300: no dense BF16 Blackwell Ultra run is published, so the
    # bound is the best dense FP8 run on the BF16 peak, above 100% of it (FP8 GEMMs run at up
    # to twice the BF16 peak) and above GB300's measured BF16 GEMM ceiling
    # (data/efficiency.csv). (On GB200, NVIDIA's DGX Cloud Llama 3.1 405B BF16 run is one.)
    c = claims.check_claim("llama-3.1-70b", 8e12, "GB300-NVL72", n_gpus=1152, mfu=0.4,
                           seq_len=8192)
    text = " ".join(c.describe().split())
    bound = re.search(r"at any size, ([\d.]+)% of the BF16 peak", c.best_source)
    assert c.best_published is None and float(bound.group(1)) > 100.0 > 100 * c.ceiling
    assert (f"above the {c.ceiling:.1%} ceiling, so no utilisation the ceiling admits is above "
            "it: the ceiling alone judges this claim") in text
    # a claim with a comparable BF16 run of its own class keeps that run as its reference
    h100 = claims.check_claim("llama-3.1-70b", 8e12, "H100-SXM", n_gpus=1024, mfu=0.4,
                              seq_len=8192)
    assert "the ceiling alone judges" not in " ".join(h100.describe().split())


def test_an_fp8_cost_claims_range_compares_the_ceiling_on_the_bf16_peak():
    # a review: a cost-only FP8 claim's MFU range is on the BF16 peak (the hours it needs are
    # FLOPs ÷ (peak(BF16) × MFU)), the ceiling a fraction of the FP8 peak; on GB200 the FP8 peak
    # is twice the BF16 one (data/accelerators.csv), so the ceiling doubles on the BF16 peak and
    # the best FP8 run at any size is below it: the range tops at that run. OPT-1.3B has no dense
    # Blackwell run within 4× of its size (Llama 3.1 70B, the example before, now has NVIDIA's
    # benchmarks of its own architecture as references: claims.own_runs)
    c = claims.check_claim("opt-1.3b", 2e12, "GB200-NVL72", n_gpus=1024, usd=5e6,
                           dtype="fp8", seq_len=2048)
    r = c.peak_flops_per_s["fp8"] / c.peak_flops_per_s["bf16"]
    assert r == pytest.approx(2.0, rel=1e-3)
    bound = float(re.search(r"at any size, ([\d.]+)% of the BF16 peak", c.best_source).group(1))
    assert bound / 100 < c.ceiling * r
    assert c.needed_mfu_range[1] == pytest.approx(bound / 100, abs=5e-4)
    assert c.needed_mfu_range[0] == pytest.approx(0.5 * bound / 100, abs=5e-4)
    assert "the ceiling alone judges" not in " ".join(c.describe().split())


def test_an_impossible_owned_cost_is_priced_at_the_owned_amortisation():
    # owned GPUs have no catalogue: their price is the ledger's amortisation (a review read
    # "the catalogue's owned median")
    c = claims.check_claim("llama-3.1-8b", 1e12, "H100-SXM", n_gpus=64, usd=100,
                           pricing="owned", seq_len=4096)
    pr = claims.price_range("H100-SXM", "owned")
    assert c.left_out_basis.startswith(
        f"priced at the owned amortisation's hardware ({pr['default_note']}), "
        f"${pr['default']:.2f}/GPU-h: the claimed $100 is below the least its FLOPs can cost")
    # the lines are the bill's: energy on the electricity line, as `estimate` prices it
    assert next(x for x in c.left_out if x["line"] == "electricity")["status"] == "modelled"


def test_a_claim_with_nothing_comparable_is_said_unverified():
    # a second trial: Llama 2 70B on 512 MI300X read "PLAUSIBLE" from check and "unverified:
    # nothing comparable published" from notebook 09; the catalogue has no published MI300X run
    c = claims.check_claim("llama-2-70b", 1e12, "MI300X", n_gpus=512, mfu=0.30, seq_len=4096)
    text = " ".join(c.describe().split())
    assert c.verdict == "plausible" and c.best_published is None
    assert text.count("Verdict: PLAUSIBLE (unverified: no comparable published run; only the "
                      "matmul ceiling judged it)") == 1
    h100 = claims.check_claim("llama-2-70b", 1e12, "H100-SXM", n_gpus=512, mfu=0.30,
                              seq_len=4096)
    assert "unverified" not in " ".join(h100.describe().split())


def test_an_owned_runs_lines_are_the_bills():
    # a second trial: owned A100s at $15,000 each: check priced the hours and the exploratory
    # runs at the all-in $1.19/GPU-h with electricity "included", estimate at the hardware's
    # $1.13 with energy on its own line; the totals agreed, the lines did not
    sc = {"model": "llama-2-13b", "accelerator": "A100-80GB", "n_gpus": 256,
          "train_tokens": 1.0e12, "seq_len": 4096, "mfu": 0.45, "pricing": "owned",
          "ledger_owned_usd_per_gpu": 15000.0, "global_batch_tokens": 4194304}
    bill = ledger.build_ledger(sc)
    c = claims.check_claim("llama-2-13b", 1e12, "A100-80GB", n_gpus=256, mfu=0.45,
                           seq_len=4096, pricing="owned",
                           ledger_keys={"ledger_owned_usd_per_gpu": 15000.0},
                           goodput=bill.figures["goodput"],  # and its storage, as the CLI
                           bill_keys={"ckpt_storage_bytes_per_s":
                                      bill.figures["ckpt_storage_bytes_per_s"]})
    lines = {x["key"]: x["usd"] for x in c.left_out}
    for key in ("compute.exploratory", "energy.electricity"):
        assert lines[key] == pytest.approx(bill.line(key).usd, rel=1e-9), key
    assert c.price["default"] == pytest.approx(bill.figures["gpu_rate_usd_per_gpu_hour"],
                                               rel=1e-9)
