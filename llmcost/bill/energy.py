"""Energy and emissions of GPU-hours: MWh at the facility's power per GPU, and tCO2e.

Cottier et al. 2024 (arXiv:2405.21015 §2.3) count a GPU-hour at the facility's power (TDP ×
server W/TDP × average draw × PUE: ``pricing.facility_kw_per_gpu``); the Llama model cards count
the TDP alone; ``energy_of`` gives both. The bill's energy line (``ledger``) uses it;
``llmcost.ledger`` re-exports these names.
"""

from __future__ import annotations

import numpy as np

from ..core.catalog import as_accelerator
from ..core.units import as_array, as_scalar
from .pricing import default, facility_kw_per_gpu, server_power_per_tdp


def energy_mwh(gpu_hours, watts_per_gpu):
    """Energy of ``gpu_hours`` accelerator-hours drawing ``watts_per_gpu`` each, in MWh
    (E = GPU-hours × W / 10⁶). Meta's model cards use the device TDP (Llama 3.1: 700 W; Llama 2:
    400 W, "adjusted for PUE"); the bill uses ``facility_kw_per_gpu``."""
    h = as_array(gpu_hours, "gpu_hours", nonnegative=True)
    w = as_array(watts_per_gpu, "watts_per_gpu", positive=True)
    return float(h * w / 1e6) if h.ndim == 0 and w.ndim == 0 else h * w / 1e6


def tco2e(mwh, kg_co2e_per_kwh):
    """Location-based emissions in tonnes: MWh × 1,000 kWh/MWh × kg/kWh ÷ 1,000 kg/t. With the
    default grid intensity (EIA 2023, 1,532 Mt / 4,183,271 GWh = 0.366 kg/kWh) this is CO2
    only: EIA counts no methane or N2O, so CO2e is slightly higher."""
    e = as_array(mwh, "mwh", nonnegative=True)
    k = as_array(kg_co2e_per_kwh, "kg_co2e_per_kwh", nonnegative=True)
    return float(e * k) if e.ndim == 0 and k.ndim == 0 else e * k



def energy_of(gpu_hours, accelerator, pue=None, kg_co2e_per_kwh=None) -> dict:
    """The bill's energy and emissions for ``gpu_hours`` on ``accelerator``, beside a TDP-only
    count.

        E_bill = GPU-hours × facility_kw_per_gpu (TDP × server W/TDP × 0.75 draw × PUE)
        E_TDP  = GPU-hours × TDP            (the Llama model cards' convention: 700 W per H100)
        tCO2e  = E_bill × grid kg/kWh       (default US 2023, 0.366: data/ledger_defaults.csv;
                                             CO2 only (EIA): CO2e slightly higher)

    The two conventions differ by ``factor`` = E_bill / E_TDP (1.50 for an H100: 1.82 × 0.75 ×
    1.1, Cottier et al. 2024 §2.3); compare a model card's figure with ``mwh_tdp`` or divide the
    bill's by ``factor``.

    Returns
    -------
    dict with ``mwh``, ``tco2e``, ``mwh_tdp``, ``factor``, ``kw_per_gpu`` and
    ``kg_co2e_per_kwh``.
    """
    acc = as_accelerator(accelerator)
    kw = facility_kw_per_gpu(acc, pue)
    grid = default("grid_kg_co2e_per_kwh") if kg_co2e_per_kwh is None else kg_co2e_per_kwh
    mwh = energy_mwh(gpu_hours, kw * 1e3)
    return {"mwh": mwh, "tco2e": tco2e(mwh, grid), "mwh_tdp": energy_mwh(gpu_hours, acc.tdp_w),
            "factor": kw * 1e3 / acc.tdp_w, "kw_per_gpu": kw, "kg_co2e_per_kwh": grid}


def energy_terms(accelerator, pue=None) -> dict:
    """The terms of the bill's facility power per accelerator (``facility_kw_per_gpu``, Cottier
    et al. 2024, arXiv:2405.21015 §2.3), each dimensionless but the TDP:

        kW per GPU = TDP × (server W ÷ TDP) × (average draw ÷ rated power) × PUE
        factor     = (server W ÷ TDP) × (average draw ÷ rated power) × PUE
                   = E_bill ÷ E_TDP      (``energy_of``'s factor: 1.82 × 0.75 × 1.1 = 1.50 for an
                                          H100, 2.03 × 0.75 × 1.1 = 1.67 for an A100)

    Returns
    -------
    dict with ``tdp_w``, ``server_per_tdp`` (``server_power_per_tdp``), ``draw``
    (``power_to_tdp`` of ``data/ledger_defaults.csv``), ``pue`` (given, or the default),
    ``kw_per_gpu`` and ``factor``.

    Raises
    ------
    ValueError
        As ``facility_kw_per_gpu``: no TDP, or a PUE below 1.
    """
    acc = as_accelerator(accelerator)
    if pue is not None and np.ndim(pue) != 0:
        raise ValueError(f"ledger_pue={pue!r} must be one number (energy_terms describes one "
                         "facility; facility_kw_per_gpu takes arrays of draws)")
    kw = facility_kw_per_gpu(acc, pue)
    pue_ = default("pue") if pue is None else as_scalar(pue, "ledger_pue", positive=True)
    server, draw = server_power_per_tdp(acc), default("power_to_tdp")
    return {"tdp_w": acc.tdp_w, "server_per_tdp": server, "draw": draw, "pue": pue_,
            "kw_per_gpu": kw, "factor": kw * 1e3 / acc.tdp_w}
