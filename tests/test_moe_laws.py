"""MoE scaling laws and over-training (llmcost.laws.moe) against the papers' stated values."""

import numpy as np
import pytest

from llmcost.core.catalog import load_model
from llmcost.laws import moe, scaling


# ----------------------------------------------------------------- Clark et al. 2022
def test_saturated_experts_limits():
    # Eq. 1's transform: Ê(1) = E_start, Ê → E_max as E → ∞ (hand derivation)
    f = moe.CLARK_FITS["s-base"]
    assert moe.saturated_experts(1, "s-base") == pytest.approx(f.e_start, rel=1e-12)
    assert moe.saturated_experts(1e9, "s-base") == pytest.approx(f.e_max, rel=1e-5)


def test_effective_params_clark_example():
    # Clark et al. 2022 (arXiv:2202.01169), effective parameter count: a 5M base with 128
    # experts (S-BASE) performs like a ~55M dense model. The 3-decimal Table 3 constants give
    # 51.8M; two-sided 10%.
    n_bar = moe.effective_params(5e6, 128, "s-base")
    assert 55e6 * 0.9 < n_bar < 55e6 * 1.1


def test_effective_params_is_dense_equivalent():
    # definition: L(N̄, 1) = L(N, E)
    for fit in moe.CLARK_FITS:
        n_bar = moe.effective_params(2e8, 64, fit)
        assert moe.routed_loss(n_bar, 1, fit) == pytest.approx(moe.routed_loss(2e8, 64, fit),
                                                               rel=1e-10)


def test_routing_cutoff_sbase():
    # Clark et al. 2022: S-BASE stops helping at N_cutoff = 937B (130B tokens); Table 3's
    # rounded b, c give 1.0e12. Two-sided 10%.
    assert 937e9 * 0.9 < moe.routing_cutoff_params("s-base") < 937e9 * 1.1
    # at the cutoff the effective count equals the base (no benefit), to rounding
    n = moe.routing_cutoff_params("s-base")
    assert moe.effective_params(n, 64, "s-base") == pytest.approx(n, rel=1e-9)


def test_clark_bad_input():
    with pytest.raises(ValueError, match="n_experts"):
        moe.saturated_experts(0.5)
    with pytest.raises(ValueError, match="fit="):
        moe.routed_loss(1e9, 8, "nope")


# -------------------------------------------------------------- Krajewski et al. 2024
def test_krajewski_constants_table1():
    # Krajewski et al. 2024 (arXiv:2402.07871) Table 1
    m, d = moe.KRAJEWSKI_MOE, moe.KRAJEWSKI_DENSE
    assert (m.a, m.alpha, m.b, m.beta, m.g, m.gamma, m.c) == (18.1, 0.115, 30.8, 0.147, 2.1,
                                                              0.58, 0.47)
    assert (d.a, d.alpha, d.b, d.beta, d.c) == (16.3, 0.126, 26.7, 0.127, 0.47)


def test_krajewski_loss_fit_is_eq9():
    f = moe.krajewski_loss_fit(8)
    n, d, g = 1e9, 3e10, 8.0
    eq9 = 0.47 + (2.1 / g ** 0.58 + 18.1) / n ** 0.115 + 30.8 / d ** 0.147
    assert scaling.loss(n, d, f) == pytest.approx(eq9, rel=1e-12)


#: Krajewski et al. 2024 Table 2: compute-optimal (E x N_act, D, G, FLOPs, loss).
KRAJEWSKI_TABLE2 = [(100e6, 4.37e9, 8, 2.95e18, 3.133), (1e9, 28.94e9, 16, 1.93e20, 2.491),
                    (3e9, 72.90e9, 16, 1.41e21, 2.245), (7e9, 137.60e9, 32, 6.46e21, 2.076),
                    (70e9, 941.07e9, 32, 4.16e23, 1.694), (300e9, 2.96e12, 64, 5.69e24, 1.503),
                    (1e12, 7.94e12, 64, 4.97e25, 1.367)]


@pytest.mark.parametrize("n_act, d, g, flops, ell", KRAJEWSKI_TABLE2)
def test_moe_optimum_reproduces_table2(n_act, d, g, flops, ell):
    # Krajewski et al. 2024 §6.2 / Table 2, from Eq. 9 (Table 1) under Eq. 10 (c_f 6, c_r 14,
    # d_model = 64·n_blocks): G exactly, N_act and D two-sided 3%, loss two-sided 1%, as the
    # docstring states (measured worst over the rows: N_act +2.52%, D −2.19%, loss −0.85%)
    r = moe.moe_compute_optimal(flops).iloc[0]
    assert r.granularity == g
    assert n_act * 0.97 < r.active_params < n_act * 1.03
    assert d * 0.97 < r.train_tokens < d * 1.03
    assert ell * 0.99 < r.loss < ell * 1.01


@pytest.mark.parametrize("n_act, d, g, flops, ell", KRAJEWSKI_TABLE2)
def test_table2_flops_identity(n_act, d, g, flops, ell):
    # Eq. 10 by hand for each row: N = N_act·516/12, d = (64·N/(8E+4))^(1/3),
    # F/D = (12d²·6 + d·64·G·14)·d/64; times the row's D it is the row's FLOPs, two-sided 0.5%
    # (measured worst 0.42%, the 64x3B row; the table prints 3-4 significant figures)
    n = n_act * 516 / 12
    d_model = (64 * n / 516) ** (1 / 3)
    fpt = (12 * d_model ** 2 * 6 + d_model * 64 * g * 14) * d_model / 64
    assert moe.krajewski_flops_per_token(n, g) == pytest.approx(fpt, rel=1e-12)
    assert fpt * d == pytest.approx(flops, rel=0.005)  # the table's FLOPs


def test_moe_compute_multiplier_krajewski_claim():
    # Krajewski et al. 2024 §1: "a compute-optimal MoE model trained with a budget of 10^20
    # FLOPs will achieve the same quality as a dense Transformer trained with a 20x greater
    # computing budget" (two-sided 16-24x here: 21.3x), "with the compute savings rising
    # steadily, exceeding 40x when budget of 10^25 FLOPs is surpassed". The second claim is not
    # reproduced from their Table 1 constants (the module docstring: neither is it by the
    # authors' own flops_save code): 32.0x at 1e25, below 40x.
    r = moe.moe_compute_optimal([1e20, 1e25])
    assert 16 < r.compute_multiplier[0] < 24
    assert r.compute_multiplier[1] > r.compute_multiplier[0]
    assert r.compute_multiplier[1] < 40  # the paper's "exceeding 40x": not reproduced
    # Regression pin (code output, not a source): 32.0x at 1e25.
    assert r.compute_multiplier[1] == pytest.approx(32.0, abs=0.5)


def test_dense_equivalent_lies_outside_the_dense_runs():
    # Krajewski et al. 2024 App. A Table 4 (dense models): 3M-85M non-embedding parameters,
    # 16B-66B tokens. The dense model of equal loss to Table 2's smallest optimum (64x100M,
    # 2.95e18 FLOPs) is already ~448M parameters: the dense side is an extrapolation there and
    # beyond, and the row is flagged so.
    assert moe.KRAJEWSKI_DENSE_PARAMS_RANGE == (3e6, 85e6)
    assert moe.KRAJEWSKI_DENSE_TOKENS_RANGE == (16e9, 66e9)
    r = moe.moe_compute_optimal([2.95e18, 1e20, 1e25])
    assert (r.dense_params > 85e6).all() and not r.dense_in_fit_range.any()
    assert not r.in_fit_range.any()
    assert (r.in_fit_range == (r.moe_in_fit_range & r.dense_in_fit_range)).all()
    # [hand] Table 4's runs are long: at least 16B tokens on at most 85M parameters, >= 188
    # tokens per parameter, while the dense fit's compute-optimal models take 41-46 (1e15-1e27
    # FLOPs). No dense equivalent lies inside the dense runs at any budget.
    wide = moe.moe_compute_optimal(np.geomspace(1e15, 1e27, 25))
    ratio = wide.dense_tokens / wide.dense_params
    assert (ratio > 40).all() and (ratio < 47).all() and (ratio < 16e9 / 85e6).all()
    assert not wide.dense_in_fit_range.any()


def test_routing_cost_makes_granularity_finite():
    # without routing FLOPs (c_r = 0) the largest G always wins; with c_r = 14 it does not
    assert moe.moe_compute_optimal(1e20, c_r=0).granularity.iloc[0] == 256
    assert moe.moe_compute_optimal(1e20).granularity.iloc[0] == 16


def test_fits_disagree_direction():
    # Clark: the dense-equivalent ratio falls to 1 at the cutoff; Krajewski's stays above 1
    # and the compute multiplier grows
    df = moe.moe_fits_compared([1e8, 1e10, 1e12])
    assert np.all(np.diff(df.clark_dense_equivalent_ratio) < 0)
    assert df.clark_dense_equivalent_ratio.iloc[-1] == pytest.approx(1.0, abs=0.01)
    assert np.all(df.krajewski_dense_equivalent_ratio > 1.5)
    assert np.all(np.diff(df.krajewski_compute_multiplier) > 0)


def test_granularity_bad_input():
    with pytest.raises(ValueError, match="granularity"):
        moe.krajewski_loss_fit(0.5)
    with pytest.raises(ValueError, match="granularity"):
        moe.moe_compute_optimal(1e20, granularity=0.5)
    with pytest.raises(ValueError, match="compute_flops"):
        moe.moe_compute_optimal(-1.0)
    with pytest.raises(ValueError, match="active_params"):
        moe.moe_fits_compared([1e20])


# --------------------------------------------------------------------- Gadre et al. 2024
def test_gadre_form_equals_chinchilla_form():
    # Gadre et al. 2024 (arXiv:2403.08540) Eq. 4-5: with α = β, L(N, D) = L(C, M) at
    # C = 6ND, M = D/N (hand derivation in the module docstring)
    n, d = 1.4e9, 900e9  # Gadre et al.'s 1.4B model on 900B tokens
    assert moe.gadre_loss(6 * n * d, d / n, "muennighoff2023") == pytest.approx(
        scaling.loss(n, d, "muennighoff2023"), rel=1e-12)


@pytest.mark.parametrize("name, e, a, b, eta, m_star_paper, m_star", [
    ("gadre2024_c4", 1.51, 114, 190, 0.242, 2.87, 3.37),
    ("gadre2024_redpajama", 1.84, 166, 367, 0.272, 4.30, 7.55),
    ("gadre2024_refinedweb", 1.73, 125, 246, 0.254, 3.79, 5.87)])
def test_gadre_table6_and_their_optimal_multipliers(name, e, a, b, eta, m_star_paper, m_star):
    # Gadre et al. 2024 App. E Table 6 prints (E, a, b, η) = the authors' code's fit
    # (mlfoundations/scaling, scaling/laws.py powlaw_ours): L = E + a·N^-η + b·6^(-η/2)·D^-η
    c, m = 1e21, 640.0
    n = (c / (6 * m)) ** 0.5
    by_hand = e + a * n ** -eta + b * 6 ** (-eta / 2) * (m * n) ** -eta
    assert scaling.loss(n, m * n, moe.GADRE_FITS[name]) == pytest.approx(by_hand, rel=1e-12)
    # the same as Eq. 4 with compute exponent η/2, a·6^(η/2) and b (their App. A)
    g = moe.gadre_form(name)
    assert g["eta"] == pytest.approx(eta / 2, rel=1e-12)
    assert moe.gadre_loss(c, m, name) == pytest.approx(by_hand, rel=1e-12)
    # Eq. 10 on Eq. 4's coefficients; the paper's own figures plug the printed table into it
    assert g["optimal_multiplier"] == pytest.approx(m_star, rel=0.005)
    # Transcription check (no package code): the paper's 2.87/4.30/3.79 are (b/a)^(1/(2η))
    # of the Table 6 values written in the parametrisation above.
    assert (b / a) ** (1 / (2 * eta)) == pytest.approx(m_star_paper, rel=0.005)


@pytest.mark.parametrize("name, n, d, measured", [
    # the authors' released C4-eval losses (mlfoundations/scaling exp_data/models/*.json)
    ("gadre2024_redpajama", 411616256, 8232325120, 3.1498),     # 0.411B, M = 20 (fitted)
    ("gadre2024_redpajama", 1439795200, 921468928000, 2.5021),  # 1.4B, 900B tokens (predicted)
    ("gadre2024_c4", 411616256, 8232325120, 3.0417),            # 0.411B, M = 20 (fitted)
    ("gadre2024_refinedweb", 6889410560, 137788211200, 2.4547)])  # 6.9B, M = 20 (predicted)
def test_gadre_fits_reproduce_their_released_losses(name, n, d, measured):
    # two-sided 3% (the paper's own relative errors at these points are a few per cent)
    assert measured * 0.97 < scaling.loss(n, d, moe.GADRE_FITS[name]) < measured * 1.03


def test_gadre_optimal_multiplier_near_chinchilla():
    # the compute-optimal M* of the Muennighoff C4 fit: ~20 tokens per parameter, as Gadre et
    # al. take M = 20 as compute-optimal (§2). Two-sided 15-25.
    assert 15 < moe.gadre_form("muennighoff2023")["optimal_multiplier"] < 25


def test_overtraining_penalty_closed_form_matches_exact():
    # the closed-form penalty equals the exact same-loss computation for an α = β fit
    fit = "muennighoff2023"
    m_star = moe.gadre_form(fit)["optimal_multiplier"]
    for k in (10.0, 100.0):
        row = moe.overtraining(1e9, [k], fit).iloc[0]
        assert row.tokens_per_param == pytest.approx(k * m_star, rel=1e-9)
        assert row.penalty == pytest.approx(moe.overtraining_penalty(k * m_star, fit), rel=1e-6)
    assert moe.overtraining_penalty(m_star, fit) == pytest.approx(1.0, rel=1e-9)


def test_overtraining_break_even_is_lifetime_equality():
    df = moe.overtraining(8e9, [1, 10, 100], "besiroglu2024")
    assert np.isnan(df.break_even_inference_tokens[0])
    for _, r in df.iloc[1:].iterrows():
        life = r.train_flops + 2 * r.n_params * r.break_even_inference_tokens
        life_opt = r.optimal_train_flops + 2 * r.optimal_n_params * r.break_even_inference_tokens
        assert life == pytest.approx(life_opt, rel=1e-9)
        assert r.penalty > 1 and r.params_ratio > 1 and r.loss_gain > 0


def test_overtraining_gadre_requires_equal_exponents():
    with pytest.raises(ValueError, match="alpha"):
        moe.gadre_form("besiroglu2024")
    with pytest.raises(ValueError, match="factors"):
        moe.overtraining(1e9, [0.5])


def test_published_moe_runs_placed():
    # DeepSeek-V3 (catalogue: arXiv:2412.19437): C = 6 · N_active · D by hand, and the run is
    # over-trained against the optimum at that compute (far fewer active parameters)
    m = load_model("deepseek-v3")
    r = moe.moe_runs_vs_optimum().set_index("name").loc["deepseek-v3"]
    assert r.compute_flops == pytest.approx(6 * m.n_active_params * m.train_tokens, rel=1e-12)
    assert r.expansion == pytest.approx(m.n_params / m.n_active_params, rel=1e-12)
    assert r.active_vs_optimal < 0.5
