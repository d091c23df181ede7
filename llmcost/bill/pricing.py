"""The price of an owned GPU-hour and the facility power per accelerator (Cottier et al. 2024,
arXiv:2405.21015 §2.2-2.3, App. A.1-A.4), and the sourced defaults of ``data/ledger_defaults.csv``.

Below both ``scenario`` (``resolve_price`` with ``pricing: owned``) and ``ledger`` (the bill), so
neither imports the other for it: the package has no import cycle. ``llmcost.ledger`` re-exports
``owned_usd_per_gpu_hour``, ``facility_kw_per_gpu``, ``default`` and ``default_source``;
``owned_price_words`` says an owned rate as the bill and the notebooks (``scenario_price``) say it.
"""

from __future__ import annotations

import csv
import math
from functools import lru_cache

import numpy as np

from ..core.catalog import DATA_DIR, as_accelerator
from ..core.units import HOURS_PER_YEAR, as_array, scalar_or_array


@lru_cache(maxsize=1)
def default_rows() -> dict:
    """``data/ledger_defaults.csv`` as ``{key: row}`` (value, unit, range, date, source, notes
    as strings), read once."""
    with (DATA_DIR / "ledger_defaults.csv").open(newline="", encoding="utf-8") as fh:
        return {r["key"]: r for r in csv.DictReader(fh)}


def default(key: str) -> float:
    """A sourced default of ``data/ledger_defaults.csv`` (its ``value``)."""
    rows = default_rows()
    if not isinstance(key, str):
        raise ValueError(f"key={key!r} must be a ledger default name (a string)")
    if key not in rows:
        raise ValueError(f"ledger default {key!r} must be one of {', '.join(rows)}")
    return float(rows[key]["value"])


def default_range(key: str) -> tuple:
    """``(value, low, high)`` of a ``data/ledger_defaults.csv`` row; a bound not published is
    None."""
    value = default(key)
    row = default_rows()[key]

    def num(x):
        return float(x) if x not in ("", None) else None

    return value, num(row["low"]), num(row["high"])


def default_source(key: str) -> str:
    """The source of a default in ``data/ledger_defaults.csv``."""
    default(key)
    return default_rows()[key]["source"]


def owned_usd_per_gpu_hour(accelerator, acquisition_usd_per_gpu=None,
                           electricity_usd_per_kwh=None, pue=None) -> dict:
    """The cost of one GPU-hour on owned hardware, amortised as Cottier et al. 2024 do.

    Hardware (arXiv:2405.21015 §2.2, App. A): the cluster's value per accelerator is its price ×
    the server multiplier (``server_cost_multiplier``: 1.66 for an A100, 1.64 otherwise; CPUs,
    memory, board) ÷ (1 − 0.19), interconnect being 19% of cluster cost (their "23% overhead");
    a year of use is charged r·ln 10 = 0.14·ln 10 = 32% of that start value (Epoch's code:
    "optimal to replace k·ln 10 per year", r the rate of hardware price-performance); over a
    whole year the value falls 1 − 10^−0.14 = 28% (to 72%, Cottier et al. §2.2), so

        capex $/GPU-h = price × 1.64 (A100: 1.66) / (1 − 0.19) × 0.14·ln 10 / 8,766 h

    (the value at the start of training is taken as the acquisition price: new hardware).
    Energy (§2.3): TDP × server power per accelerator (1.82× TDP for an H100 server, 2.03×
    for an A100 one) × average draw 0.75 × PUE × $/kWh. Figures in ``data/ledger_defaults.csv``.

    Parameters
    ----------
    accelerator : Accelerator
    acquisition_usd_per_gpu : float, optional
        Price of one accelerator (default: $27,500 for an H100 SXM; required otherwise).
    electricity_usd_per_kwh, pue : float, optional
        Defaults: US industrial 2025 price (data/ledger_defaults.csv); PUE 1.1.

    Returns
    -------
    dict with ``capex_usd_per_gpu_hour``, ``energy_usd_per_gpu_hour``, ``usd_per_gpu_hour``
    (their sum), ``kw_per_gpu`` (facility power per accelerator), ``acquisition_usd_per_gpu``
    and ``acquisition_default`` (True where the price is the workbook's H100 default).
    """
    accelerator = as_accelerator(accelerator)
    taken = acquisition_usd_per_gpu is None
    if acquisition_usd_per_gpu is None:
        if accelerator.name != "H100-SXM":
            # a trial's owned A100 scenario gave ledger_owned_usd_per_gpu and read that the
            # hardware sweep's H200 and B200 "need" it: a scenario's price is its own GPU's
            raise ValueError(f"pricing='owned' on {accelerator.name} needs "
                             "ledger_owned_usd_per_gpu (its own purchase price, where a "
                             "scenario's prices the scenario's accelerator only) or "
                             "price_usd_per_gpu_hour; the workbook has a sourced price for "
                             "H100-SXM only")
        acquisition_usd_per_gpu = default("h100_acquisition_usd")
    # scalar_or_array: a float, or draws of the bill (ledger.simulate_ledger)
    price = scalar_or_array(as_array(acquisition_usd_per_gpu, "ledger_owned_usd_per_gpu",
                                     positive=True))
    rate = default("depreciation_ooms_per_year") * math.log(10.0)
    cluster = price * server_cost_multiplier(accelerator) / (1.0 - default("interconnect_share"))
    capex = cluster * rate / HOURS_PER_YEAR
    kw = facility_kw_per_gpu(accelerator, pue)
    usd_kwh = default("electricity_usd_per_kwh") if electricity_usd_per_kwh is None else \
        scalar_or_array(as_array(electricity_usd_per_kwh, "ledger_electricity_usd_per_kwh",
                                 nonnegative=True))
    return {"capex_usd_per_gpu_hour": capex, "energy_usd_per_gpu_hour": kw * usd_kwh,
            "usd_per_gpu_hour": capex + kw * usd_kwh, "kw_per_gpu": kw,
            "acquisition_usd_per_gpu": price, "cluster_usd_per_gpu": cluster,
            "acquisition_default": taken}


#: The inputs of an owned GPU-hour (``owned_usd_per_gpu_hour``) that ``owned_hour_range``
#: takes at the ends of their published range in ``data/ledger_defaults.csv``: the purchase
#: price (a Raymond James estimate reported by Tae Kim of Barron's, 2023-08-16: an H100 sells
#: for $25,000-$30,000) and the PUE
#: (Cottier et al. 2024 App. A.4: 1.1 for hyperscalers, 1.25 for others). The others are one
#: published figure each (the value loss 0.14 OOM/year, the interconnect share, the average
#: draw, the 2025 electricity price) or a spread across GPU generations, not an uncertainty on
#: one (the server multiplier's 1.54-1.69 is P100's and V100's; Cottier et al.'s code takes
#: 1.66 for an A100 and 1.64 for an H100), so they stay at their value.
OWNED_RANGED = ("h100_acquisition_usd", "pue")


def owned_hour_range(accelerator) -> dict:
    """An owned GPU-hour (``owned_usd_per_gpu_hour``, Cottier et al. 2024) at the ends of the
    published ranges of its inputs (``OWNED_RANGED``): the hour rises with the purchase price
    and the PUE, so

        low  = hour(price_low,  PUE_low),   high = hour(price_high, PUE_high)

    e.g. an H100-SXM: $25,000 × 1.64 / 0.81 × 0.14·ln 10 / 8,766 h = $1.861 capex + 0.7 kW ×
    1.82 × 0.75 × 1.1 × $0.0861/kWh = $0.0905 energy = $1.95; at $30,000 and PUE 1.25, $2.34;
    the point ($27,500, 1.1) $2.14. Only where the purchase price is sourced (H100-SXM):
    ValueError elsewhere, as ``owned_usd_per_gpu_hour``. The low end is not a floor against
    another depreciation rule (a longer straight-line life): the value loss has one published
    figure, 0.14 OOM/year, taken as it is.

    Returns
    -------
    dict with ``low``, ``point``, ``high`` (USD per GPU-hour), ``price`` and ``pue`` (each
    ``(low, high)``) and ``words`` (the range and its inputs in a phrase).
    """
    acc = as_accelerator(accelerator)
    point = float(owned_usd_per_gpu_hour(acc)["usd_per_gpu_hour"])  # ValueError: unsourced
    _, p_lo, p_hi = default_range("h100_acquisition_usd")
    _, u_lo, u_hi = default_range("pue")
    low = float(owned_usd_per_gpu_hour(acc, p_lo, None, u_lo)["usd_per_gpu_hour"])
    high = float(owned_usd_per_gpu_hour(acc, p_hi, None, u_hi)["usd_per_gpu_hour"])
    return {"low": low, "point": point, "high": high, "price": (p_lo, p_hi), "pue": (u_lo, u_hi),
            "words": (f"the owned amortisation of {acc.name}, ${low:.2f}–${high:.2f} at a "
                      f"purchase price of ${p_lo:,.0f}–${p_hi:,.0f} and a PUE of "
                      f"{u_lo:g}–{u_hi:g} (Cottier et al. 2024; data/ledger_defaults.csv; "
                      "llmcost.pricing.owned_hour_range)")}


def owned_price_words(own: dict) -> str:
    """Where an owned GPU-hour's rate comes from, in the bill's words (``own``: the dict of
    ``owned_usd_per_gpu_hour``; the ledger's draws format as their summary): its purchase price
    amortised, the hardware rate capex $/GPU-h that every GPU-hour line of the bill charges, and
    the energy of a GPU-hour, which the bill prices on its electricity line, not in that rate
    (``ledger._basis``: rate = price − energy)."""
    return (f"owned: ${own['acquisition_usd_per_gpu']:,.0f} per GPU"
            + (f" ({ACQUISITION_DEFAULT_WORDS})" if own.get("acquisition_default") else "")
            + f" amortised as Cottier et al. "
            f"2024 (${own['capex_usd_per_gpu_hour']:.2f}/GPU-h hardware, the rate of the compute "
            f"lines, + ${own['energy_usd_per_gpu_hour']:.3f}/GPU-h energy, priced on the "
            "electricity line)")


def _acquisition_default_words() -> str:
    """The default H100 purchase price's basis and date, from data/ledger_defaults.csv: a
    procurement trial read "$27,500 per GPU" beside 2026 rental prices with no date or
    source."""
    row = default_rows()["h100_acquisition_usd"]
    return (f"the workbook's default: the midpoint of a ${float(row['low']):,.0f}-"
            f"${float(row['high']):,.0f} H100 sale price, a Raymond James estimate reported "
            f"{row['date']}; ledger_owned_usd_per_gpu for your quote")


ACQUISITION_DEFAULT_WORDS = _acquisition_default_words()


def facility_kw_per_gpu(accelerator, pue=None) -> float:
    """Average facility power per accelerator during training, kW (Cottier et al. 2024 §2.3):
    TDP × server power per accelerator ÷ TDP × average draw (0.75) × PUE.

    Raises
    ------
    ValueError
        An accelerator without a TDP in ``data/accelerators.csv``, or a PUE below 1.
    """
    accelerator = as_accelerator(accelerator)
    if not accelerator.tdp_w:
        raise ValueError(f"accelerator={accelerator.name!r} has no tdp_w in "
                         "data/accelerators.csv (no published power figure): the energy of "
                         "owned hardware needs it; give the owned hourly rate with its energy "
                         "included (price_usd_per_gpu_hour with pricing: owned), or price the "
                         "run rented (pricing: on_demand, reserved or spot)")
    pue_ = default("pue") if pue is None else as_array(pue, "ledger_pue", positive=True)
    pue_ = float(pue_) if np.ndim(pue_) == 0 else pue_  # an array of draws broadcasts
    if np.any(np.asarray(pue_) < 1):
        bad = float(np.min(pue_))
        raise ValueError(f"ledger_pue={bad!r} must be >= 1 (facility power includes IT power)")
    return accelerator.tdp_w / 1e3 * server_power_per_tdp(accelerator) * \
        default("power_to_tdp") * pue_


def server_cost_multiplier(accelerator) -> float:
    """A server's price per accelerator ÷ the accelerator's price (CPUs, memory, board): Epoch
    AI's get_server_cost_overhead for arXiv:2405.21015 (``data/ledger_defaults.csv``), 1.66 for
    an A100 (a name starting with A100), 1.64 (their average) for every other accelerator.
    Their 1.69 (V100) and 1.54 (P100) are for accelerators the workbook does not list."""
    name = as_accelerator(accelerator).name
    return default("server_cost_multiplier_a100") if name.startswith("A100") \
        else default("server_cost_multiplier")


def server_power_per_tdp(accelerator) -> float:
    """A server's power per accelerator ÷ the accelerator's TDP: host CPUs, memory, NICs and
    fans (``data/ledger_defaults.csv``), each a system's maximum power over its GPUs and TDP::

        A100-*        DGX A100 6.5 kW / 8 GPUs / 0.4 kW                        = 2.03
        GB300-NVL72   GB300 NVL72 rack 142 kW / 72 GPUs / 1.4 kW               = 1.41
        GB200-NVL72   (142 kW − 72 × (1.4 − 1.2) kW) / 72 GPUs / 1.2 kW        = 1.48
        every other   DGX H100 10.2 kW / 8 GPUs / 0.7 kW                       = 1.82

    The A100 and H100 figures are Epoch AI's chip_to_server_power for arXiv:2405.21015; the
    GB300 one is NVIDIA's Enterprise Reference Architecture for the NVL72 AI factory ("Full rack
    requiring up to 142 kW"), where the H100 ratio would give 183 kW, 29% above it. NVIDIA
    publishes no GB200 rack figure: GB200's takes the GB300 rack (the same Grace CPUs, NVLink
    switch trays and power shelves) with 1.2 kW GPUs, 127.6 kW, below NVIDIA's DGX SuperPOD GB200
    unit, whose 8 racks "require a Thermal Design Power (TDP) of 1.2 Megawatts" with their
    InfiniBand switches (2.08 kW a GPU; the H100 ratio gave 2.18). An approximation off the H100
    elsewhere: Cottier et al.'s code (epoch-research/training-cost-trends,
    ``chip_to_server_power``) takes 1.82 only for a name containing "H100" (here H100-SXM and
    H100-96GB-500W), 1.8 for a GPU it does not list and its own figure per TPU generation, so
    the energy of an H200, H800, B200, MI300X or MI325X is about 1% higher here (1.82 / 1.8),
    and a TPU's differs more."""
    name = as_accelerator(accelerator).name
    key = {"GB300-NVL72": "chip_to_server_power_gb300",
           "GB200-NVL72": "chip_to_server_power_gb200"}.get(
        name, "chip_to_server_power_a100" if name.startswith("A100") else
        "chip_to_server_power_h100")
    return default(key)


def purchase_price_on(scenario: dict, accelerator) -> dict:
    """The scenario's ``ledger_owned_usd_per_gpu`` on ``accelerator``: the purchase price the
    scenario gives is its own accelerator's (``accelerator`` key, default H100-SXM), so on
    another accelerator it is dropped (``{"ledger_owned_usd_per_gpu": None}``) and that
    accelerator's owned hour is priced by ``owned_usd_per_gpu_hour``'s own rule (the sourced
    H100-SXM price, else refused: it needs its own purchase price), the rule ``llmcost estimate``
    applies; ``{}`` on the scenario's own accelerator or when no price is given."""
    if scenario.get("ledger_owned_usd_per_gpu") is None:
        return {}
    own = as_accelerator(scenario.get("accelerator") or "H100-SXM").name
    return {} if as_accelerator(accelerator).name == own else {"ledger_owned_usd_per_gpu": None}
