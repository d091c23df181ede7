

def test_signed_tenths_writes_no_negative_zero():
    # A trial: page 09's "days saved" read "-0.0" for a lever that saves a few minutes' loss
    from llmcost.present import plots
    assert plots.signed_tenths(-0.01) == "0.0" and plots.signed_tenths(0.04) == "0.0"
    assert plots.signed_tenths(1.25) == "+1.2" and plots.signed_tenths(-0.36) == "-0.4"
    assert plots.signed_tenths(float("nan")) == "–"
