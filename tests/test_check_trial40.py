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
    # Llama 3.1 70B in BF16 on GB200: no dense BF16 Blackwell run is published, so the bound is
    # the best dense FP8 run on the BF16 peak, above 100% of it (FP8 GEMMs run at up to twice
    # the BF16 peak) and above GB200's measured BF16 GEMM ceiling (data/efficiency.csv)
    c = claims.check_claim("llama-3.1-70b", 8e12, "GB200-NVL72", n_gpus=1152, mfu=0.4,
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
