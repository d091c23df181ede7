"""A serving set-up that names its accelerator is priced on it, at its price
(``setups.named_setup_price``), in notebook 05's sections 6.3 (``setups_side_by_side``) and 6.4
(``api_price_comparison``) alike.

A user trial: on an A100-80GB scenario, notebook 05's "EP32 prefill + EP72 decode on H100" row
cost $0.216 per M output at the A100's $2.79 per GPU-hour ($0.309 at the default scenario's
$3.99: exactly the price ratio), and 6.4 modelled "the same" deployment on the A100 itself (TPOT
119 ms against 71 ms on H100) and told students DeepSeek sells input below cost (margin −51%
against +60%). Rule: a set-up on the scenario's own accelerator keeps the scenario's price; one
on another accelerator is priced at that accelerator's catalogue price for the scenario's pricing
mode (``catalog.catalogue_price``: the median of the current rows of data/prices.csv), on-demand
for owned hardware (the owned amortisation is of the scenario's own GPUs).

Hand derivation: USD per M output = GPUs × USD per GPU-hour ÷ (output tokens/s × 3600) × 1e6;
per GPU, USD per GPU-hour ÷ (output tokens/s per GPU × 3600) × 1e6. For the disaggregated
deployment the output tokens are the decode pool's (``disaggregated_serving``'s docstring); for
the TP8 replica, 8 GPUs over the replica's tokens/s.
"""

import math
import statistics

import pytest

import llmcost
from llmcost import inference as inf
from llmcost.core import catalog
from llmcost.serving import setups

KW = dict(prompt_tokens=1000, output_tokens=250)   # notebook 05's default request shape


def _catalogue_median(accelerator: str) -> float:
    # data/prices.csv's current on-demand rows of one accelerator, their median by hand: H100-SXM
    # when written, AWS $6.88, Azure $12.29, Lambda $3.99, CoreWeave $6.155, RunPod $2.69 →
    # $6.155; H200, CoreWeave $6.305, Hyperstack $3.99 → $5.1475
    rows = catalog.list_prices(accelerator, "on_demand", current_only=True)
    return statistics.median(rows["price_usd_per_gpu_hour"].tolist())


def _scenario(accelerator: str, price=None, pricing="on_demand"):
    """(Accelerator, USD per GPU-hour) of a scenario, as notebook 05 takes them."""
    p = {"accelerator": accelerator, "price_usd_per_gpu_hour": price, "pricing": pricing}
    return catalog.scenario_accelerator(p), llmcost.scenario_price(p)[0]


def test_an_h100_set_up_on_an_a100_scenario_is_priced_at_the_h100_catalogue_price():
    gpu, price = _scenario("A100-80GB")
    assert price == pytest.approx(2.79)   # the A100's catalogue price, not the H100's
    h100, h200 = _catalogue_median("H100-SXM"), _catalogue_median("H200")
    side = setups.setups_side_by_side("opt-1.3b", gpu, price, max_tpot_s=0.05, **KW)
    d = setups.disaggregated_serving("deepseek-v3", "H100-SXM", 1.0, **KW,
                                     **setups.MOE_DEPLOYMENT)
    x_d = d.decode.expected_tokens_per_s_per_gpu
    ep = side.iloc[2]
    assert "on H100-SXM" in ep["set-up"] and ep["USD per GPU-hour"] == pytest.approx(h100)
    assert ep["USD per M output"] == pytest.approx(h100 / (x_d * 3600) * 1e6, rel=1e-12)
    assert ep["price basis"] == "H100-SXM on-demand catalogue median"
    # TP8 on 8 H200: 8 × $/GPU-h ÷ (replica output tokens/s × 3600) × 1e6
    tp8 = inf.serving_cost("deepseek-v3", "H200", 1.0, tp=8, weight_dtype="fp8",
                           kv_dtype="bf16", **KW)
    replica = 8 * tp8.expected_output_tokens_per_s_per_gpu
    assert side.iloc[1]["USD per M output"] == pytest.approx(
        8 * h200 / (replica * 3600) * 1e6, rel=1e-12)
    # the dense row is on the scenario's own A100 at the scenario's price
    assert "A100-80GB" in side.iloc[0]["set-up"] and side.iloc[0]["USD per GPU-hour"] == price
    assert side.iloc[0]["price basis"] == setups.OWN_PRICE_WORDS


def test_a100_and_h100_scenarios_price_an_h100_set_up_alike_at_the_catalogue_price():
    a100, h100 = _scenario("A100-80GB"), _scenario("H100-SXM")   # both at the catalogue's
    assert h100[1] == pytest.approx(_catalogue_median("H100-SXM"))
    sides = [setups.setups_side_by_side("opt-1.3b", g, p, max_tpot_s=0.05, **KW)
             for g, p in (a100, h100)]
    lists = [setups.api_price_comparison(g, p, max_tpot_s=0.05, **KW).set_index("model")
             for g, p in (a100, h100)]
    for row in (1, 2):   # the two DeepSeek-V3 set-ups: same accelerator, same price
        assert sides[0].iloc[row]["USD per M output"] == pytest.approx(
            sides[1].iloc[row]["USD per M output"], rel=1e-12)
    for col in ("modelled_usd_per_m_input", "modelled_usd_per_m_output", "margin_input"):
        assert lists[0].loc["deepseek-v3", col] == pytest.approx(
            lists[1].loc["deepseek-v3", col], rel=1e-12)
    assert lists[0].loc["deepseek-v3", "set_up"] == lists[1].loc["deepseek-v3", "set_up"]


def test_sections_6_3_and_6_4_give_one_set_up_one_price():
    # 6.4 modelled DeepSeek-V3 on the scenario's GPU (TPOT 119 ms on an A100) while 6.3 named H100
    gpu, price = _scenario("A100-80GB")
    side = setups.setups_side_by_side("opt-1.3b", gpu, price, max_tpot_s=0.05, **KW)
    ds = setups.api_price_comparison(gpu, price, max_tpot_s=0.05, **KW).set_index(
        "model").loc["deepseek-v3"]
    d = side.attrs["disaggregated"]
    assert ds["modelled_usd_per_m_output"] == side.iloc[2]["USD per M output"]
    assert ds["modelled_usd_per_m_input"] == d.usd_per_m_input
    assert ds["accelerator"] == "H100-SXM" and ds["usd_per_gpu_hour"] == side.iloc[2][
        "USD per GPU-hour"]
    assert f"TPOT {d.expected_tpot_s * 1e3:.0f} ms" in ds["set_up"]
    # the margin follows from that price: 1 − modelled ÷ list
    assert ds["margin_input"] == pytest.approx(1 - d.usd_per_m_input / ds["list_usd_per_m_input"])


def test_a_set_up_on_the_scenario_accelerator_keeps_the_scenario_price():
    # the default scenario: Lambda's $3.99 H100 hour, below the catalogue median
    gpu, price = _scenario("H100-SXM", 3.99)
    side = setups.setups_side_by_side("opt-1.3b", gpu, price, max_tpot_s=0.05, **KW)
    x_d = side.attrs["disaggregated"].decode.expected_tokens_per_s_per_gpu
    assert side.iloc[2]["USD per M output"] == pytest.approx(3.99 / (x_d * 3600) * 1e6,
                                                             rel=1e-12)
    assert side.iloc[2]["price basis"] == setups.OWN_PRICE_WORDS
    ds = setups.api_price_comparison(gpu, price, max_tpot_s=0.05, **KW).set_index(
        "model").loc["deepseek-v3"]
    assert ds["usd_per_gpu_hour"] == 3.99 and ds["price_basis"] == setups.OWN_PRICE_WORDS
    # the scenario's own Accelerator (its network figure) is the one the set-up runs on
    own = catalog.scenario_accelerator({"accelerator": "H100-SXM",
                                        "comm_scaleout_bytes_per_s": 25e9})
    on, usd, _ = setups.named_setup_price("H100-SXM", own, 3.99)
    assert on is own and usd == 3.99


def test_the_named_price_follows_the_scenario_pricing_mode():
    a100 = catalog.load_accelerator("A100-80GB")
    # the current H100-SXM rows of data/prices.csv by hand: spot CoreWeave $2.46375
    # (2026-09), reserved Hyperstack $2.72 (2026-08), the older rows not current
    for mode, hand in (("spot", 2.46375), ("reserved", 2.72)):
        on, usd, basis = setups.named_setup_price("H100-SXM", a100, 1.0, mode)
        assert on.name == "H100-SXM" and usd == pytest.approx(hand, rel=1e-9)
        assert basis == f"H100-SXM {mode} catalogue median"
    # H200's reserved median ($7.895, AWS) lies above its on-demand median: capped there
    _, usd, basis = setups.named_setup_price("H200", a100, 1.0, "reserved")
    assert usd == pytest.approx(_catalogue_median("H200")) and "no reserved price below" in basis
    # owned: another accelerator is rented on demand, said so
    _, usd, basis = setups.named_setup_price("H100-SXM", a100, 1.0, "owned")
    assert usd == pytest.approx(_catalogue_median("H100-SXM")) and "rented" in basis
    gpu, price = _scenario("A100-80GB", pricing="spot")
    side = setups.setups_side_by_side("opt-1.3b", gpu, price, max_tpot_s=0.05, pricing="spot",
                                      **KW)
    assert side.iloc[2]["USD per GPU-hour"] == pytest.approx(2.46375, rel=1e-9)


@pytest.mark.parametrize("args, match", [
    (("H100-SXM", "A100-80GB", 2.0, "free"), r"pricing='free' must be one of"),
    (("H100-SXM", "A100-80GB", -1.0), "price_usd_per_gpu_hour"),
    (("no-such-gpu", "A100-80GB", 2.0), "no-such-gpu"),
    (("H100-SXM", "no-such-gpu", 2.0), "no-such-gpu"),
])
def test_named_setup_price_refuses_bad_input_by_field(args, match):
    with pytest.raises(ValueError, match=match):
        setups.named_setup_price(*args)
    if len(args) == 4:
        with pytest.raises(ValueError, match="pricing="):
            setups.api_price_comparison("A100-80GB", 2.0, pricing=args[3], **KW)


def test_a_named_accelerator_without_a_catalogue_price_keeps_its_row_unpriced(monkeypatch):
    # A review: a named set-up whose accelerator has no catalogue price of the mode stopped the
    # whole table. Gaudi 3 has no price row in data/prices.csv: a deployment named on it keeps
    # its row, its figures NaN and its set-up saying why; the dense row is priced as before.
    monkeypatch.setattr(setups, "MOE_DEPLOYMENT_ACCELERATOR", "Gaudi 3")
    t = setups.api_price_comparison("A100-80GB", 2.0, pricing="on_demand").set_index("model")
    assert math.isnan(t.loc["deepseek-v3", "modelled_usd_per_m_output"])
    assert t.loc["deepseek-v3", "set_up"].startswith("not priced on Gaudi 3: ")
    assert t.loc["llama-3.1-70b", "usd_per_gpu_hour"] == 2.0
    with pytest.raises(ValueError, match="price_usd_per_gpu_hour"):
        setups.api_price_comparison("A100-80GB", -1.0)
