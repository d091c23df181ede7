"""``core.hardware``'s Cluster takes its GPU count as every other count is taken
(``units.as_count``)."""

import numpy as np
import pytest

import llmcost


def test_a_cluster_takes_any_whole_number_of_gpus_numpys_floats_included():
    # an API trial: Cluster(h100, 8.0) was accepted and Cluster(h100, np.float32(8)) refused
    h100 = llmcost.load_accelerator("H100-SXM")
    for n in (8, 8.0, np.float32(8), np.int64(8)):
        c = llmcost.Cluster(h100, n)
        assert c.n_gpus == 8 and type(c.n_gpus) is int
    for bad in (8.5, True, 0, float("nan")):
        with pytest.raises(ValueError, match=r"n_gpus=.* must be a whole number >= 1"):
            llmcost.Cluster(h100, bad)
