

def test_signed_tenths_writes_no_negative_zero():
    # A trial: page 09's "days saved" read "-0.0" for a lever that saves a few minutes' loss
    from llmcost.present import plots
    assert plots.signed_tenths(-0.01) == "0.0" and plots.signed_tenths(0.04) == "0.0"
    assert plots.signed_tenths(1.25) == "+1.2" and plots.signed_tenths(-0.36) == "-0.4"
    assert plots.signed_tenths(float("nan")) == "–"


def test_a_small_bill_is_drawn_in_its_own_unit():
    # A trial's $48.32 bill on 1 GPU was drawn in "USD (millions)" (bars of 4.8e-05, a 1e-5
    # offset) and its 8.46 GPU-hours in "GPU-hours (million)". Each figure now takes the
    # power of 1,000 at or below its largest amount (usd_scale): $48 in USD, $4.8M in
    # millions; a caller's own scale keeps a name ("× 2e+06" where none is standard).
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    import pytest
    from llmcost.present import plots
    for total, unit in ((48.32, "USD"), (4.832e6, "USD (millions)"), (2.5e9, "USD (billions)")):
        table = pd.DataFrame({"key": ["compute", "storage", "total"],
                              "line": ["compute", "storage", "total"],
                              "category": ["compute", "storage", "total"],
                              "usd": [0.9 * total, 0.1 * total, total], "status": ["modelled"] * 3})
        ax = plots.bill_waterfall(table)
        assert ax.get_ylabel() == unit
        # each colour's category named once (a trial read an unlabelled orange bar)
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["compute", "storage"]
        plt.close(ax.figure)
    wf = pd.DataFrame({"line": ["ideal", "failures", "paid"], "gpu_hours": [8.46, 0.06, 8.52]})
    ax = plots.goodput_waterfall(wf)
    assert ax.get_ylabel() == "GPU-hours"
    plt.close(ax.figure)
    assert plots.usd_unit(2e6) == "USD (× 2e+06)" and plots.scale_words(1e3) == "thousands"
    with pytest.raises(ValueError, match="scale=0 must be > 0"):
        plots.bill_waterfall(table, scale=0)


def test_a_failure_free_job_draws_its_waterfall_without_a_warning():
    # A failure-free job (fail_rate_per_gpu_year: 0, fail_planned_per_day: 0) pays its ideal
    # GPU-hours: the zoom on the losses had a height of zero ("Attempting to set identical low
    # and high ylims", a matplotlib warning in notebook 07). With no loss the axis starts at
    # zero and the paid bar, equal to the ideal one, stands below its top.
    import warnings

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    from llmcost.present import plots
    wf = pd.DataFrame({"line": ["ideal", "failures", "paid"],
                       "gpu_hours": [623_963.0, 0.0, 623_963.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = plots.goodput_waterfall(wf)
    lo, hi = ax.get_ylim()
    assert lo == 0 and 623.963 < hi  # thousands of GPU-hours
    plt.close(ax.figure)


def test_the_hardware_figure_says_its_mfu_is_the_predicted_one():
    # A trial's 09: the hatched bar "A100-80GB (MFU 63%, your price)" read as the scenario's bill,
    # which the scenario prices at its own 45%; every bar is at the predicted MFU's central
    # estimate (levers.hardware_sweep), and its label says so: "central MFU" (a review read
    # "predicted MFU 56%" beside a table of predicted 60.7%, central estimate 55.8%)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    from llmcost.present import plots
    sweep = pd.DataFrame({"accelerator": ["A100-80GB", "H100-SXM"], "bill_usd": [2630.0, 2100.0],
                          "bill_low_usd": [2400.0, 1900.0], "bill_high_usd": [3000.0, 2500.0],
                          "scenario": [True, False], "mfu": [0.63, 0.5],
                          "predicted_mfu": [0.6, 0.5],
                          "rankable": [True, True],
                          "price_basis": ["the scenario's price", "catalogue"]})
    ax = plots.hardware_bills(sweep)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert "A100-80GB (central MFU 63%, your price)" in labels
    assert "H100-SXM (central MFU 50%)" in labels
    assert ax.get_legend() is None   # no calibrated column: no reference line
    plt.close(ax.figure)
    # the scenario's own bill beside the bars (a trial read the hatched bar, at the predicted
    # MFU, as it): its own row at its own price, at its own MFU (bill_calibrated_usd)
    ax = plots.hardware_bills(sweep.assign(bill_calibrated_usd=[2800.0, 2240.0]))
    (line,) = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert line.get_xdata()[0] == 2.8 and "USD (thousands)" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "this scenario's bill at its own MFU, $2.80k"]
    plt.close(ax.figure)


def test_the_pilot_figure_counts_a_series_of_one_run_in_the_singular():
    # A trial read "(1 runs)" on notebook 04b's "What does a pilot buy?" labels.
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    from llmcost.present import plots
    summary = pd.DataFrame({"uncal": [0.1, 0.2], "one_scale_loso": [0.05, 0.1],
                            "two_scale_loso": [0.04, 0.08], "n": [1, 3]},
                           index=["megatron-bridge · gb200", "llm-foundry-mpt · h100 · bf16"])
    ax = plots.pilot_validation_errors(summary)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["megatron-bridge · gb200 (1 run)", "MPT tables · h100 (3 runs)"]
    plt.close(ax.figure)


def test_the_lever_figure_leaves_out_levers_that_change_nothing_and_counts_them():
    # A lecturer's page 09: 15 of 19 rows of the figure were $0 ("already", "none given", not
    # applicable); the figure shows the levers that move the bill and its source line counts the
    # others, which the table lists with why
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    from llmcost.present import plots
    ranked = pd.DataFrame({"lever": ["a", "b", "c", "d"], "group": ["waste"] * 4,
                           "saving_usd": [500.0, -20.0, 0.0, 0.0],
                           "saving_p10_usd": [400.0, -30.0, 0.0, 0.0],
                           "saving_p90_usd": [600.0, -10.0, 0.0, 0.0]})
    ax = plots.lever_savings(ranked)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "a"]
    assert "2 levers that change nothing on this bill left out" in \
        ax.figure.get_supxlabel().replace("\n", " ")
    plt.close(ax.figure)
    # every lever at 0: all shown (nothing else to draw), nothing said left out
    ax = plots.lever_savings(ranked.assign(saving_usd=0.0, saving_p10_usd=0.0,
                                           saving_p90_usd=0.0))
    assert len(ax.get_yticklabels()) == 4 and "left out" not in ax.figure.get_supxlabel()
    plt.close(ax.figure)
