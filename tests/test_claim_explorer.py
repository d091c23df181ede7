"""The notebook 08 Explore panel builds headlessly and prints what ``llmcost check`` prints for
the claim on its sliders (Output widgets print to stdout outside a kernel)."""

import pytest

import llmcost
from llmcost import claims

pytest.importorskip("ipywidgets")


def _printed(capsys):
    out = capsys.readouterr().out  # outside a kernel, clear_output writes an ANSI line erase
    return out[out.index("Claim:"):].strip()


def test_the_panel_prints_the_check_of_the_claim_on_its_sliders(capsys):
    from llmcost.present.widgets import claim_explorer

    box = claim_explorer("llama-2-70b", "H100-SXM", "bf16", 2e12, 2048, 30.0)
    spec, gpu = llmcost.load_model("llama-2-70b"), llmcost.load_accelerator("H100-SXM")
    want = claims.check_claim(spec, 2e12, gpu, n_gpus=2048, days=30.0, dtype="bf16",
                              left_out=False).describe()
    assert _printed(capsys) == want.strip()
    tokens_w, gpus_w, days_w = box.children[0].children
    days_w.value = 60.0  # twice the days for the same FLOPs: half the implied utilisation
    want60 = claims.check_claim(spec, 2e12, gpu, n_gpus=2048, days=60.0, dtype="bf16",
                                left_out=False)
    assert _printed(capsys) == want60.describe().strip()
    # the check itself: U = D·F(s) / (H·3600·P), so twice the days halves the whole-run figure
    u30 = claims.check_claim(spec, 2e12, gpu, n_gpus=2048, days=30.0, dtype="bf16",
                             left_out=False).whole_run["bf16"]
    assert want60.whole_run["bf16"] == pytest.approx(u30 / 2, rel=1e-9)
    assert u30 == pytest.approx(spec.flops_per_token(4096, causal=False) * 2e12
                                / (2048 * 30 * 86400 * gpu.peak_flops_per_s("bf16")), rel=0.05)


def test_the_panel_opens_where_notebook_08_judged_the_scenario(capsys):
    # A trial: notebook 08's panel opened at 30 days ("steady-state MFU 17.3%: LOW") beneath the
    # scenario's own line ("steady-state MFU 40.0%"). Opened at the scenario's paid hours and the
    # bill's goodput, it judges the same run: steady state = the scenario's MFU, 40%.
    from llmcost.present.widgets import claim_explorer
    spec, gpu = llmcost.load_model("llama-2-70b"), llmcost.load_accelerator("H100-SXM")
    hours, g, _ = claims.scenario_as_claim(spec, 2e12, gpu, 2048, 0.40, dtype="bf16",
                                           seq_len=4096, goodput=0.9675)
    claim_explorer("llama-2-70b", "H100-SXM", "bf16", 2e12, 2048, days=hours / 2048 / 24,
                   goodput=g)
    assert "steady-state MFU 40.0%" in " ".join(_printed(capsys).split())
    with pytest.raises(ValueError, match="goodput"):
        claim_explorer("llama-2-70b", "H100-SXM", goodput=1.5)
    # and at the bill's own GPU-hour price (a later trial read the scenario's hours at the
    # catalogue median, $6.16, in the panel and at the scenario's $3.99 on 00): hand,
    # hours × $3.99
    claim_explorer("llama-2-70b", "H100-SXM", "bf16", 2e12, 2048, days=hours / 2048 / 24,
                   goodput=g, price_usd_per_gpu_hour=3.99)
    said = " ".join(_printed(capsys).split())
    paid = 2048 * 24 * round(hours / 2048 / 24, 9)
    assert "$3.99/GPU-h" in said and "median" not in said.split("Price:")[1][:60], said
    assert f"${paid * 3.99 / 1e6:.2f}M" in said
    with pytest.raises(ValueError, match="price_usd_per_gpu_hour=0"):
        claim_explorer("llama-2-70b", "H100-SXM", price_usd_per_gpu_hour=0)


def test_a_refused_claim_names_its_days_in_six_digits(capsys):
    # an analyst moved the panel to 8 GPUs at the page's 13.12112928923919 days and read that
    # float in the refusal; 8 GPUs for 13.1 days cannot hold 2T tokens of a 70B model: by hand
    # 13.1211 × 8 × 24 = 2,519 GPU-h, against the 1.2M GPU-h 6ND needs at the peak itself
    from llmcost.present.widgets import claim_explorer
    box = claim_explorer("llama-2-70b", "H100-SXM", "bf16", 2e12, 2048, 13.12112928923919)
    capsys.readouterr()
    box.children[0].children[1].value = 8
    out = capsys.readouterr().out
    assert "refused: days=13.1211 × n_gpus=8 × 24 = 2,519 GPU-h" in out
    assert "13.12112928923919" not in out
    assert box.children[0].children[2].step == 0.1
