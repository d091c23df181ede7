"""Notebook 05's serving figures agree with themselves (a new-user trial, session 21: scenario
"70B dense, FP8, 128k context, 1,024 H100"). The headline figures printed "time per output token
0.0297 s (batch 410)", the roofline TPOT beside prices on an engine, and section 6.2 priced the
same TP 4 / batch 410 set-up at $0.301 per M output against the headline's $0.32: the curve had
every batch slot busy, the headline the scenario's occupancy of 90 %.

The notebook's own cells run in process (only those of the set-up, section 6.2 and the
headline's rows, not the RL sections), on the trial's scenario, and:

* where the headline's set-up is 6.2's cheapest point, their expected prices and TPOT are equal;
* the headline TPOT is the expected one and its floor the roofline's (as the prices are);
* by hand (``inference.serving_cost``'s formula): USD per M output = expected TPOT × tp /
  (occupancy × batch) × price / 3600 × 1e6, from the headline's own printed figures;
* where the set-ups differ (the scenario fixes serve_tp), the printed words say so and why.
"""

import contextlib
import io

import matplotlib.pyplot as plt
import pytest
from _inprocess import code_cells
from _trial_scenarios import LLAMA_70B_FP8_128K

from llmcost.present import report

NB = report.NOTEBOOK_DIR / "05_rl_loop.ipynb"
#: the trial's scenario, as the user wrote it
S1 = 'title: "70B dense, FP8, 128k context, 1,024 H100"\n' + LLAMA_70B_FP8_128K
#: the cells run: the set-up up to the serving choice, then these (one each)
KEEP = ('engines.latency_throughput_curve(spec', 'engines.cheapest_setup(spec',
        'answers.serving_points(', 'summary_row("usd_per_m_output_tokens"',
        'summary_row("tpot_s"')


def _run(tmp_path, extra: str = "") -> tuple[dict, str]:
    """The kept cells of notebook 05 exec'd on S1 (+ ``extra``): (namespace, printed text)."""
    path = tmp_path / "s1.yaml"
    path.write_text(S1 + extra)
    plan = report.plan_report(path)
    nb = next(n for n in plan.notebooks if n.stem == "05_rl_loop")
    params = report.notebook_parameters_for(nb, plan)
    cells = [(src, c) for _, src, c in code_cells(NB) if c["cell_type"] == "code"]
    setup_end = next(i for i, (src, _) in enumerate(cells) if "choose_serving_tp(" in src)
    run = cells[:setup_end + 1] + [x for x in cells[setup_end + 1:]
                                   if any(k in x[0] for k in KEEP)]
    assert len(run) == setup_end + 1 + len(KEEP)
    ns = {"__name__": "__main__", "display": lambda *a, **k: None}
    exec("from llmcost.serving import engines, setups", ns)  # noqa: S102 (section 6.1's import)
    out = io.StringIO()
    for src, cell in run:
        with contextlib.redirect_stdout(out):
            exec(compile(src, "05_rl_loop", "exec"), ns)  # noqa: S102
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            ns.update(params)
        plt.close("all")
    return ns, out.getvalue()


def test_headline_is_section_6_2s_point_on_the_trial_scenario(tmp_path):
    ns, printed = _run(tmp_path)
    c, best, p = ns["c"], ns["best"], ns["p"]
    rows = {r["key"]: r["value"] for r in ns["rows"]}
    assert (c.tp, c.batch) == (int(best["tp"]), int(best["batch"]))
    assert p["serve_occupancy"] == pytest.approx(0.9)  # the scenario default the trial ran
    for key, col in (("usd_per_m_output_tokens", "expected_usd_per_m_output"),
                     ("usd_per_m_input_tokens", "expected_usd_per_m_input"),
                     ("tpot_s", "expected_tpot_s")):
        assert rows[key] == pytest.approx(float(best[col]), rel=1e-12), key
    assert rows["tpot_s"] == c.expected_tpot_s and rows["tpot_s_floor"] == c.tpot_s
    assert rows["ttft_s"] == c.expected_ttft_s and rows["ttft_s_floor"] == c.ttft_s
    assert rows["tpot_s"] > rows["tpot_s_floor"] and rows["ttft_s"] > rows["ttft_s_floor"]
    # by hand: USD/M output = TPOT × tp / (occupancy × batch) × price / 3600 × 1e6
    by_hand = rows["tpot_s"] * c.tp / (0.9 * c.batch) * 2.80 / 3600 * 1e6
    assert rows["usd_per_m_output_tokens"] == pytest.approx(by_hand, rel=1e-9)
    assert "the cheapest point above, at the same prices" in printed
    assert f"${best['expected_usd_per_m_output']:.3f}/M output" in printed


def test_a_different_headline_set_up_is_said(tmp_path):
    ns, printed = _run(tmp_path, "serve_tp: 8\n")
    c, best = ns["c"], ns["best"]
    assert c.tp == 8 and int(best["tp"]) != 8
    text = " ".join(printed.split())
    assert f"not the point above (TP {int(best['tp'])}, batch {int(best['batch'])})" in text
    assert "the scenario's serve_tp" in text
    # the headline set-up is named where a reader finds it: the answer under the page's title
    # (no heading calls it "section 0")
    assert f"the headline's set-up (the answer under the title): TP {c.tp}, batch {c.batch}" \
        in text and "section 0" not in text


def test_a_target_no_engine_meets_is_said_not_raised(tmp_path):
    # A trial: a latency target the roofline meets but no engine does passed `llmcost estimate`
    # (its warning: "no batch meets it") and stopped notebook 05 (engines.cheapest_setup raised
    # "max_tpot_s=...: the fastest set-up takes ..."). On the 70B scenario served with FP8
    # weights and KV cache at TP 8 the roofline takes 4.57 ms per output token at batch 1 and the
    # pooled engine 8.58 ms
    # (inference.serving_cost): a 5 ms target is refused by no rule and met by no engine.
    ns, printed = _run(tmp_path, "serve_max_tpot_s: 0.005\nserve_weight_dtype: fp8\n"
                                 "serve_kv_dtype: fp8\n")
    best = ns["best"]
    assert not best["meets_target"] and best["expected_tpot_s"] > 0.005
    text = " ".join(printed.split())
    assert "none meets 5 ms per token on an engine; fastest (90% busy): TP " in text
    # the headline's own choice is batch 1 at TP 8 too: one set-up, said as the fastest
    assert "the point above (the fastest), at the same prices" in text
