"""The catalogues in ``data/``: models, accelerators, prices and published training runs.

Every catalogue is a CSV file with a header, one row per item, a ``source`` column (URL or paper
and table) and a ``notes`` column. This module turns rows into typed objects (``ModelSpec``,
``Accelerator``) and looks them up by name; an unknown name raises ``ValueError`` with the closest
matches.
"""

from __future__ import annotations

import csv
import difflib
import re
import typing
from dataclasses import asdict, fields
from functools import lru_cache
from numbers import Real
from pathlib import Path

import pandas as pd

from .hardware import Accelerator, Cluster, Efficiency, within_one_domain
from .model import ModelSpec
from .units import noun

#: Folder holding the catalogues and ``scenarios/``. Notebooks and reports find files through it,
#: never through a relative path such as ``../data``.
DATA_DIR = Path(__file__).resolve().parents[2] / "data"
SCENARIO_DIR = DATA_DIR / "scenarios"

PRICING_MODES = ("on_demand", "reserved", "spot")


def _read_csv(name: str) -> list[dict]:
    path = DATA_DIR / name
    if not path.is_file():
        raise FileNotFoundError(
            f"catalogue {path} is missing: llmcost runs from a source checkout (the catalogues in "
            "data/ and the notebooks are not packaged); install it with `pip install -e .` in the "
            "repository, as `make` does")
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _convert(cls, row: dict, where: str) -> dict:
    """Convert CSV strings to the dataclass field types; empty cells take the field default."""
    hints = typing.get_type_hints(cls)
    out = {}
    for f in fields(cls):
        raw = row.get(f.name)
        if raw is None or raw.strip() == "":
            continue
        raw = raw.strip()
        t = hints[f.name]
        args = typing.get_args(t)
        base = next((a for a in args if a is not type(None)), t) if args else t
        try:
            if base is bool:
                if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError
                out[f.name] = raw.lower() in ("true", "1", "yes")
            elif base is int:
                v = float(raw)
                if not v.is_integer():
                    raise ValueError
                out[f.name] = int(v)
            elif base is float:
                out[f.name] = float(raw)
            else:
                out[f.name] = raw
        except ValueError:
            raise ValueError(f"{where}: column {f.name}={raw!r} is not a valid "
                             f"{base.__name__}") from None
    return out


def _load_rows(cls, csv_name: str, key: str) -> dict:
    """One ``cls`` per row of ``data/<csv_name>`` (validated by ``cls``), keyed by field ``key``."""
    out = {}
    for i, row in enumerate(_read_csv(csv_name), start=2):
        obj = cls(**_convert(cls, row, f"data/{csv_name} line {i}"))
        out[getattr(obj, key)] = obj
    return out


#: A size token of a model name ("70b", "1.3b", "8x7b"): a parameter count with its suffix.
SIZE_TOKEN = re.compile(r"(\d+x)?\d+(\.\d+)?[kmbt]")
#: A version token ("3.1", "v3"), alone or after the family's letters ("qwen2.5").
VERSION_TOKEN = re.compile(r"([a-z]*?)v?(\d+(?:\.\d+)*)")


def name_parts(name: str) -> tuple:
    """(family, version, sizes) of a model name split at "-", "_" and spaces: the size tokens
    (``SIZE_TOKEN``), the first version number (``VERSION_TOKEN``: "llama-3.1-70b" → 3.1,
    "qwen2.5-72b" → 2.5, "deepseek-v3" → 3; None without one) and the family, the first
    token's letters ("llama", "qwen")."""
    tokens = [t for t in re.split(r"[-_\s]+", name.lower()) if t]
    sizes = frozenset(t for t in tokens if SIZE_TOKEN.fullmatch(t))
    version = None
    for t in tokens:
        m = VERSION_TOKEN.fullmatch(t)
        if m and t not in sizes:    # "3.1" → 3.1 (a third part joins the second: 3.1.2 → 3.12)
            major, *minor = m[2].split(".")
            version = float(f"{major}.{''.join(minor) or 0}")
            break
    first = tokens[0] if tokens else ""
    return re.match(r"[a-z]*", first)[0], version, sizes


def _same_family_and_size(low: str, folded: dict) -> list:
    """The candidates of ``low``'s family that share its size tokens (``name_parts``), the
    nearest version first, then the closest spelling: "llama-4-70b" → "llama-3.1-70b",
    "llama-2-70b" (a newer release of the size asked for, which spelling alone ranks below
    "llama-2-7b")."""
    family, version, sizes = name_parts(low)
    if not family or not sizes:
        return []
    same = [k for k in folded if name_parts(k)[0] == family and sizes <= name_parts(k)[2]]

    def distance(k):
        v = name_parts(k)[1]
        gap = abs(v - version) if v is not None and version is not None else float("inf")
        return gap, -difflib.SequenceMatcher(None, low, k).ratio()
    return [folded[k] for k in sorted(same, key=distance)]


def suggest(name: str, candidates, n: int = 3) -> list[str]:
    """Close matches for a mistyped name: names that start with it first, then, for a model
    name with a size, the same family at that size by nearest version
    (``_same_family_and_size``), then similar spellings (``difflib``)."""
    folded = {c.lower(): c for c in candidates}
    low = name.lower()
    # the shortest first: the plain part before its variants ("h100" -> H100-SXM before
    # H100-96GB-500W, a trial's first suggestion)
    prefix = [folded[k] for k in sorted(folded, key=lambda k: (len(k), k))
              if k.startswith(low) or low.startswith(k)]
    # the names sharing its first word ("h100 80gb" -> H100-SXM: a journalist's trial was
    # offered A100-80GB and A100-40GB first, by spelling)
    head = re.split(r"[\s_-]+", low.strip())[0]
    family = [folded[k] for k in sorted(folded, key=lambda k: (len(k), k))
              if len(head) >= 3 and re.split(r"[\s_-]+", k)[0] == head]
    close = [folded[k] for k in difflib.get_close_matches(low, list(folded), n=n, cutoff=0.5)]
    sized = _same_family_and_size(low, folded)   # a model's family at its size, where given
    return list(dict.fromkeys(prefix + sized + ([] if sized else family) + close))[:n]


def _lookup(name: str, table: dict, kind: str, lister: str, also: str = ""):
    if not isinstance(name, str):
        raise ValueError(f"{kind}={name!r} must be a catalogue name (a string)")
    if name in table:
        return table[name]
    folded = {k.lower(): k for k in table}
    if name.lower() in folded:
        return table[folded[name.lower()]]
    spaced = re.sub(r"[\s_]+", "-", name.strip().lower())   # "DeepSeek V3" is deepseek-v3
    if spaced in folded:
        return table[folded[spaced]]
    close = suggest(name, table)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    raise ValueError(f"{kind}={name!r} is not in the catalogue{hint} (`{lister}` lists them "
                     f"all){also}")


def is_config_path(name: str) -> bool:
    """True if ``name`` points at a Hugging Face config.json (a .json path or a folder path)."""
    return isinstance(name, str) and (name.endswith(".json") or "/" in name or "\\" in name)


def model_words(name) -> str:
    """A model as a page names it: a catalogue name as it is; a Hugging Face config.json
    (``is_config_path``) by the name the model takes from it and the file's name, "qwen2.5-3b
    (qwen2.5-3b.json)", never the folder it was read from (a report is circulated; the path is
    its author's); a config that cannot be read, by the file's name."""
    if not is_config_path(name):
        return str(name)
    file = Path(name).name
    try:
        return f"{load_model(name).name} ({file})"
    except ValueError:
        return file


# ---------------------------------------------------------------------------------- models
@lru_cache(maxsize=1)
def _models() -> dict[str, ModelSpec]:
    return _load_rows(ModelSpec, "models.csv", "name")


def _config_reason(msg: str) -> str:
    """``ModelSpec.from_hf_config``'s message without its leading ``config='…'`` (the model key
    names the file instead), with the separator that reads after ``model='…'``: ": no config.json
    found", " is not valid JSON: …", " must hold a JSON object, …"."""
    m = re.match(r"config=('[^']*'|\"[^\"]*\")(: | )", msg)
    if not m:
        return f": {msg}"
    return (": " if m.group(2) == ": " else " ") + msg[m.end():]


def _repo_id_hint(name: str, msg: str) -> str:
    """For a model written as a Hugging Face repository id ("Qwen/Qwen3-30B-A3B") that is no
    file here: the catalogue names its last part is, or is close to ("; did you mean
    'qwen3-30b-a3b' (the catalogue's)?"); "" otherwise."""
    if "no config.json found" not in msg or str(name).endswith(".json"):
        return ""
    last = Path(str(name)).name
    if len(last) < 3:  # "/", "a/b/": nothing to match a name on
        return ""
    table = _models()
    folded = {k.lower(): k for k in table}
    close = ([folded[last.lower()]] if last.lower() in folded else
             difflib.get_close_matches(last.lower(), list(folded), n=3, cutoff=0.8))
    close = [folded.get(c, c) for c in close]
    return (f"; did you mean {', '.join(map(repr, close))} (the catalogue's; a model outside it "
            "takes the path of a config.json file)?") if close else ""


def load_model(name: str) -> ModelSpec:
    """The catalogue ``ModelSpec`` called ``name`` (case-insensitive), or, when ``name`` is a
    path to a Hugging Face ``config.json`` (or a folder holding one), the model it describes.

    Raises
    ------
    ValueError
        If no model has that name (the message suggests close names), or the config file is
        missing or unsupported.
    """
    if is_config_path(name):
        try:
            return ModelSpec.from_hf_config(name)
        except ValueError as e:  # the user wrote it as the model: name that key
            raise ValueError(f"model={str(name)!r}{_config_reason(str(e))}"
                             f"{_repo_id_hint(name, str(e))}") from None
    outside = ("; a model outside it: give the path of its Hugging Face config.json "
               "(e.g. model: path/to/config.json)")
    try:
        return _lookup(name, _models(), "model", "llmcost list models", outside)
    except ValueError as e:   # only a name not found looks for a folder (no stat per lookup)
        if not (isinstance(name, str) and name and (Path(name) / "config.json").is_file()):
            raise
        raise ValueError(str(e).removesuffix(outside) + f"; a folder {name!r} holding a "
                         f"config.json is here: give its path, {name}/config.json") from None


def as_model(model, name: str = "model", needs: str = "this") -> ModelSpec:
    """A ``ModelSpec`` from a spec or a catalogue name, for the public entry points that take one.

    Raises
    ------
    ValueError
        Naming ``name``: an unknown catalogue name, a bare parameter count (``needs`` says what
        needs the architecture), or another type.
    """
    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, str):
        try:
            return load_model(model)
        except ValueError as e:  # load_model's message already names the value
            msg = str(e)
            raise ValueError(msg if msg.startswith(f"model={model!r}") and name == "model"
                             else f"{name}={model!r}: {msg}") from None
    if isinstance(model, Real) and not isinstance(model, bool):  # numpy scalars included
        raise ValueError(f"{name}={model!r} is a parameter count, but {needs} needs a ModelSpec "
                         "(llmcost.load_model(name) or ModelSpec.from_hf_config(path))")
    shown = repr(model)
    if len(shown) > 80:  # an Accelerator's repr runs to a page: its kind and name instead
        shown = f"<{type(model).__name__}" + (f" {model.name!r}>" if isinstance(
            getattr(model, "name", None), str) else ">")
    raise ValueError(f"{name}={shown} must be a ModelSpec or a catalogue model name")


def as_published_runs(runs=None, name: str = "runs") -> pd.DataFrame:
    """``runs`` if it is a table of published runs (a DataFrame with the columns of
    ``load_published_runs()``), the catalogue's when None; a ValueError naming ``name``
    otherwise (a path, a dict or a frame without those columns)."""
    if runs is None:
        return load_published_runs()
    if not isinstance(runs, pd.DataFrame):
        raise ValueError(f"{name}={runs!r} must be a DataFrame shaped like "
                         "llmcost.load_published_runs() (or None for the catalogue)")
    missing = sorted(set(load_published_runs().columns) - set(runs.columns))
    if missing:
        raise ValueError(f"{name} lacks the columns {missing} of llmcost.load_published_runs()")
    return runs


def as_accelerator(acc, name: str = "accelerator") -> Accelerator:
    """An ``Accelerator`` from a device or a catalogue name, for the public entry points that take
    one (the accelerator twin of ``as_model``).

    Raises
    ------
    ValueError
        Naming ``name``: an unknown catalogue name or another type.
    """
    if isinstance(acc, Accelerator):
        return acc
    if isinstance(acc, str):
        return load_accelerator(acc)
    raise ValueError(f"{name}={acc!r} must be an Accelerator or a catalogue accelerator name")


def list_models() -> pd.DataFrame:
    """One row per catalogue model: architecture summary, computed and official counts, source."""
    rows = []
    for m in _models().values():
        rows.append({
            "name": m.name, "n_layers": m.n_layers, "d_model": m.d_model, "n_heads": m.n_heads,
            "n_kv_heads": m.n_kv_heads, "ffn": m.ffn_type,
            "moe": f"{m.n_experts_active}/{m.n_experts}" + (f"+{m.n_shared_experts}"
                                                         if m.n_shared_experts else "")
            if m.is_moe else "",
            "vocab_size": m.vocab_size, "seq_len": m.seq_len,
            "n_params": m.n_params, "n_active_params": m.n_active_params,
            "official_params": m.official_params, "source": m.source,
        })
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------- accelerators
@lru_cache(maxsize=1)
def _accelerators() -> dict[str, Accelerator]:
    return _load_rows(Accelerator, "accelerators.csv", "name")


def load_accelerator(name: str) -> Accelerator:
    """The catalogue ``Accelerator`` called ``name`` (case-insensitive).

    Raises
    ------
    ValueError
        If no accelerator has that name; the message suggests close names.
    """
    return _lookup(name, _accelerators(), "accelerator", "llmcost list accelerators",
                   "; an accelerator outside the catalogue is a row of data/accelerators.csv, "
                   "its datasheet figures sourced (a suggestion is a close name, not a similar "
                   "chip)")


#: Notebooks that build a ``Cluster`` (the parallel plan, communication, step time) and so need
#: an accelerator's scale-up and scale-out figures; 09: the step-time model prices its levers;
#: 05 and 06: a report checks the RL set-up before running them (``bill.validation``), whose
#: policy update is a training plan on the RL GPUs.
CLUSTER_NOTEBOOKS = ("02", "03", "04", "04b", "05", "06", "09")
#: The notebooks that need only an accelerator's peak and HBM (every other one).
NETWORK_FREE_NOTEBOOKS = ("00", "01", "07", "08", "10")


def runnable_notebooks(acc: Accelerator) -> str:
    """Which notebooks an accelerator's catalogue figures can run, as one phrase."""
    missing = [f for f in ("scaleup_bytes_per_s_per_dir", "scaleup_domain_size",
                           "scaleout_bytes_per_s_per_dir") if getattr(acc, f) is None]
    if not missing:
        return "all"
    hint = " (a scenario can give comm_scaleout_bytes_per_s)" if missing == [
        "scaleout_bytes_per_s_per_dir"] else ""
    words = ", ".join(NETWORK_FIGURE_WORDS[f] for f in missing)
    return (f"{', '.join(NETWORK_FREE_NOTEBOOKS)} only: {', '.join(CLUSTER_NOTEBOOKS)} need "
            f"{words} (not in data/accelerators.csv){hint}")


#: The network figures of data/accelerators.csv as a reader names them (messages and listings).
NETWORK_FIGURE_WORDS = {"scaleup_bytes_per_s_per_dir": "the scale-up bandwidth",
                        "scaleup_domain_size": "the scale-up domain size",
                        "scaleout_bytes_per_s_per_dir": "the scale-out bandwidth"}


def scenario_accelerator(p: dict) -> Accelerator:
    """The scenario's accelerator: the catalogue's, with ``comm_scaleout_bytes_per_s`` (when the
    scenario gives it) as its scale-out bandwidth per direction. This is how a scenario runs the
    parallelism notebooks on an accelerator whose network figure is not in the catalogue."""
    acc = load_accelerator(p.get("accelerator", "H100-SXM"))
    bw = p.get("comm_scaleout_bytes_per_s")
    return acc.replace(scaleout_bytes_per_s_per_dir=float(bw)) if bw is not None else acc


def scenario_cluster(p: dict):
    """The scenario's ``Cluster``: ``scenario_accelerator(p)`` × ``n_gpus``, with the scenario's
    ``comm_scaleout_latency_s`` (when given) in place of the efficiency row's.

    Raises
    ------
    ValueError
        When the catalogue lacks a network figure: named in a reader's words, with the scenario
        key that supplies it (``comm_scaleout_bytes_per_s``) where there is one.
    """
    acc = scenario_accelerator(p)
    missing = [f for f in NETWORK_FIGURE_WORDS if getattr(acc, f) is None]
    if missing == ["scaleout_bytes_per_s_per_dir"] and within_one_domain(
            p["n_gpus"], acc.scaleup_domain_size):
        missing = []  # no NIC in the step (Cluster)
    if missing:
        key = ("; give comm_scaleout_bytes_per_s in the scenario (bytes/s per GPU per "
               f"direction); a job within one scale-up domain (up to {acc.scaleup_domain_size} "
               "GPUs) needs none" if missing == ["scaleout_bytes_per_s_per_dir"] else "")
        raise ValueError(f"accelerator={acc.name!r}: "
                         f"{', '.join(NETWORK_FIGURE_WORDS[f] for f in missing)} is missing "
                         "from data/accelerators.csv (no sourced figure) and the step-time "
                         f"model needs it{key}")
    return Cluster(acc, int(p["n_gpus"]), scaleout_latency_s=p.get("comm_scaleout_latency_s"))


def next_generation(accelerator, dtype: str = "bf16") -> Accelerator | None:
    """The catalogue's next generation after ``accelerator``, or None where it has none: of the
    same vendor's accelerators released in the same or a later year (``year``,
    data/accelerators.csv, whose notes say per row whether it is the announcement or the first
    shipping year) with a higher dense peak in ``dtype`` (a refresh at the same peak,
    H200 after H100 or GB300 after GB200 in BF16, is not a new generation of compute), the one
    with the same scale-up domain size first (an 8-GPU server stays one: B200 after H100 or
    H200, not GB200-NVL72), then the earliest year, then the highest peak (ties: the
    catalogue's order). A trial read "on B200" as the next generation of a GB200 run, which B200
    follows in neither year nor peak. An accelerator without a year has none.

    Raises
    ------
    ValueError
        An accelerator not in the catalogue, or no ``dtype`` peak on it."""
    acc = as_accelerator(accelerator)
    peak = acc.peak_flops_per_s(dtype)

    def faster(a: Accelerator) -> bool:
        v = getattr(a, f"peak_{dtype}_flops_per_s")
        return v is not None and float(v) > peak
    later = [a for a in _accelerators().values()
             if a.vendor == acc.vendor and a.year is not None and acc.year is not None
             and a.year >= acc.year and faster(a)]
    if not later:
        return None
    return min(later, key=lambda a: (a.scaleup_domain_size != acc.scaleup_domain_size, a.year,
                                     -a.peak_flops_per_s(dtype)))


def list_accelerators() -> pd.DataFrame:
    """One row per catalogue accelerator with every datasheet column (dense peaks, SI units) and
    ``notebooks``: which notebooks its figures can run (``runnable_notebooks``)."""
    accs = list(_accelerators().values())
    df = pd.DataFrame([asdict(a) for a in accs])
    df["notebooks"] = [runnable_notebooks(a) for a in accs]
    return df.astype({"year": "Int64", "scaleup_domain_size": "Int64"})


# ---------------------------------------------------------------------------------- efficiency
@lru_cache(maxsize=1)
def _efficiency() -> dict[str, Efficiency]:
    return _load_rows(Efficiency, "efficiency.csv", "accelerator")


def load_efficiency(accelerator) -> Efficiency:
    """The achievable fractions (``Efficiency``) for an accelerator, from ``data/efficiency.csv``.

    Parameters
    ----------
    accelerator : Accelerator or str
        A device or its catalogue name.

    Returns
    -------
    Efficiency. An accelerator without a row of its own gets the ``"default"`` row (generic
    figures; its ``accelerator`` field then reads ``"default"`` so callers can say so).
    """
    name = accelerator.name if isinstance(accelerator, Accelerator) else accelerator
    if not isinstance(name, str):
        raise ValueError(f"accelerator={accelerator!r} must be an Accelerator or a catalogue name")
    table = _efficiency()
    if name.lower() not in {k.lower() for k in table} and not isinstance(accelerator,
                                                                         Accelerator):
        name = load_accelerator(name).name  # an unknown name is an error, not the default row
    folded = {k.lower(): k for k in table}
    return table[folded.get(name.lower(), "default")]


def list_efficiency() -> pd.DataFrame:
    """The achievable-fraction constants of every accelerator row, with their sources."""
    return pd.DataFrame([asdict(e) for e in _efficiency().values()])


@lru_cache(maxsize=1)
def _gemm_mamf() -> pd.DataFrame:
    df = pd.DataFrame(_read_csv("gemm_mamf_blackwell.csv"))
    for c in ("mamf_tflops", "theory_tflops", "efficiency_published"):
        df[c] = df[c].astype(float)
    return df


def load_gemm_mamf() -> pd.DataFrame:
    """Published maximum achievable matmul rates of Blackwell-family GPUs
    (``data/gemm_mamf_blackwell.csv``): stas00/ml-engineering's MAMF table (mamf-finder.py, the
    best shape's mean rate over 100 iterations after 50 warm-up), one row per GPU and dtype
    (``bf16``, ``fp8``): ``mamf_tflops`` measured, ``theory_tflops`` the dense datasheet peak the
    table divides by, ``efficiency_published`` the table's efficiency column
    (= mamf / theory, rounded to 0.1 %), ``catalogue_accelerator`` the ``data/accelerators.csv``
    row it is the same product as (empty for B300 SXM, which has none), with source and notes.
    Stored as evidence beside ``data/efficiency.csv``'s ``matmul_fraction`` (what the engine
    prices); the engine does not read it."""
    return _gemm_mamf().copy()


# ---------------------------------------------------------------------------------- prices
@lru_cache(maxsize=1)
def _prices() -> pd.DataFrame:
    df = pd.DataFrame(_read_csv("prices.csv"))
    df["price_usd_per_gpu_hour"] = df["price_usd_per_gpu_hour"].astype(float)
    df["current"] = df["current"].str.lower() == "true"
    df["available"] = df["available"].str.lower() == "true"
    return df


def list_prices(accelerator: str | None = None, pricing: str | None = None,
                current_only: bool = False) -> pd.DataFrame:
    """Indicative prices (USD per accelerator-hour) with provider, pricing mode, date and source.

    Rows whose ``current`` column is false are not current like-for-like catalogue prices: kept
    for reference, never in a median (``catalogue_price``), each row's notes saying why, either
    superseded (AWS P5's launch price before the June 2025 cut) or not an offer of the
    accelerator alone (GCP's a3-highgpu-1g, a 1-GPU shape sold Spot / Flex-start only and priced
    with its CPUs and RAM). Rows whose ``available`` column is false are current
    list prices the provider showed as not available (no capacity) when they were collected: a
    bill may use them, but a saving that rests on one cannot be bought (``levers.hardware_sweep``
    does not rank it).

    Parameters
    ----------
    accelerator : str, optional
        Keep only this catalogue accelerator.
    pricing : {"on_demand", "reserved", "spot"}, optional
        Keep only this pricing mode.
    """
    df = _prices()
    if pricing is not None and (not isinstance(pricing, str) or pricing not in PRICING_MODES):
        raise ValueError(f"pricing={pricing!r} must be one of {PRICING_MODES}")
    if accelerator is not None:
        df = df[df["accelerator"] == load_accelerator(accelerator).name]
    if pricing is not None:
        df = df[df["pricing"] == pricing]
    if not isinstance(current_only, bool):
        raise ValueError(f"current_only={current_only!r} must be True or False")
    if current_only:
        df = df[df["current"]]
    return df.reset_index(drop=True)


def catalogue_price(accelerator: str, pricing: str = "on_demand") -> tuple[float, str]:
    """The median current catalogue price for an accelerator and pricing mode, with provenance.

    Prices differ several-fold between providers (hyperscaler list prices vs GPU clouds), so the
    median is only a starting point; a scenario should state its own dated price. The median is
    over providers: a provider publishing reserved rates for several terms counts once, at its
    shortest published term (``min_term_days``; a row without one counts as the shortest), the
    commitment a buyer of "reserved" capacity makes at least. E.g. TPU v5p on GCP: $2.94 per
    chip-hour with a 1-year committed-use discount, $1.89 with a 3-year one; the reserved price
    is $2.94, not their midpoint $2.415, which no buyer pays. A reserved or spot median above
    the on-demand median of the same accelerator is not a discount: the on-demand median is
    the price then (``discount_price_cap``, said in the provenance; B200 reserved: AWS's
    Capacity Block $14.21 against on-demand $6.69 and $8.60 gives $7.645).

    Returns
    -------
    (price_usd_per_gpu_hour, provenance) where provenance names the rows' providers and dates.

    Raises
    ------
    ValueError
        If the catalogue has no price for that accelerator and mode.
    """
    accelerator = load_accelerator(accelerator).name
    if not isinstance(pricing, str) or pricing not in PRICING_MODES:
        raise ValueError(f"pricing={pricing!r} must be one of {PRICING_MODES}")
    return _catalogue_price(accelerator, pricing)


@lru_cache(maxsize=None)
def _catalogue_price(accelerator: str, pricing: str) -> tuple[float, str]:
    """``catalogue_price`` for a catalogue accelerator's name and a pricing mode, computed once
    per process (the price catalogue is read once, ``_prices``)."""
    df = current_prices(accelerator, pricing)
    if df.empty:
        have = [m for m in PRICING_MODES if m != pricing and m != "owned"
                and not list_prices(accelerator, m, current_only=True).empty]
        raise ValueError(f"price_usd_per_gpu_hour: the catalogue has no {pricing} price for "
                         f"{accelerator}; set price_usd_per_gpu_hour explicitly"
                         + (f", or a pricing mode it has a current price for: "
                            f"{', '.join(have)}" if have else
                            " (the catalogue has no current price for it in any mode)"))
    cap = discount_price_cap(accelerator, pricing)
    if cap is not None:  # a discount mode listed above paying by the hour: the hour's median
        return cap["on_demand"], (
            f"the on-demand median of {cap['on_demand_n']} current catalogue "
            f"{noun(cap['on_demand_n'], 'price')}, "
            f"${cap['on_demand']:.2f} ({cap['on_demand_where']}), the most a {pricing} hour is "
            "taken to cost: the "
            + (f"{cap['listed_n']} current {pricing} catalogue prices ({cap['listed_where']}; "
               f"median ${cap['listed']:.2f}) lie above it" if cap["listed_n"] != 1 else
               f"one current {pricing} catalogue price ({cap['listed_where']}) lies above it"))
    price, words = _median_price(df, pricing)
    longer = len(list_prices(accelerator, pricing, current_only=True)) - len(df)
    # a trial read "median of 1 current reserved catalogue price(s), $0.84" beside `list
    # prices`' two current rows (GCP's 1-year $0.84 and 3-year $0.54)
    return price, words + (f" (each provider at its shortest term: {longer} longer-term "
                           f"{noun(longer, 'row')} left out)" if longer > 0 else "")


def price_rows_words(df: pd.DataFrame) -> str:
    """Price rows in a few words each: provider, date, price, and "listed, not available"."""
    return "; ".join(f"{r.provider} {r.date} ${r.price_usd_per_gpu_hour:.2f}"
                     + ("" if r.available else f" ({NOT_AVAILABLE})") for r in df.itertuples())


def _median_price(df: pd.DataFrame, pricing: str) -> tuple[float, str]:
    """The median of price rows ``df`` of one pricing mode, with its provenance."""
    price = float(df["price_usd_per_gpu_hour"].median())
    # one row is that price, not a median (a trial read "median of 1 ... price(s)")
    return price, ((f"median of {len(df)} current {pricing} catalogue prices, " if len(df) != 1
                    else f"the one current {pricing} catalogue price, ")
                   + f"${price:.2f}: {price_rows_words(df)}")  # the value before the rows: a
    # trial read the first row, cut short on the index, as the price


#: The pricing modes that are a discount on paying by the hour (``discount_price_cap``).
DISCOUNT_MODES = ("reserved", "spot")


#: What a price row's notes flag (data/prices.csv), in a reader's words: ``llmcost list
#: prices``' caveat column and the cheapest-provider lever's risk.
PRICE_CAVEATS = (("[secondary, unverified]", "unverified (secondary copy)"),
                 ("Community Cloud", "community hosts, no data-centre SLA"))


def price_caveat(notes) -> str:
    """The caveats ``PRICE_CAVEATS`` finds in a price row's notes, joined; "" for none."""
    return "; ".join(w for key, w in PRICE_CAVEATS if key in str(notes))


def price_mode_words(accelerator: str, pricing: str) -> str:
    """The basis of ``accelerator``'s default catalogue price for ``pricing``, in a reader's
    words: the mode itself ("reserved"), or "on-demand median (no reserved price below it)"
    where the mode's median lies above the on-demand one and the default is that instead
    (``discount_price_cap``; a trial read H200's on-demand median labelled "reserved" beside
    H100's true reserved rate). An accelerator without catalogue rows of the mode: the mode."""
    try:
        capped = discount_price_cap(accelerator, pricing) is not None
    except ValueError:
        capped = False
    return f"on-demand median (no {pricing} price below it)" if capped else pricing


def discount_price_cap(accelerator: str, pricing: str) -> dict | None:
    """Where a discount mode's catalogue median lies above the on-demand median of the same
    accelerator, what the default price is instead: a reservation is "a billing discount
    applied to the use of On-Demand Instances", bought for "a billing discount of up to 72
    percent" (AWS whitepaper "Amazon EC2 Reserved Instances and Other AWS Reservation Models",
    https://docs.aws.amazon.com/whitepapers/latest/cost-optimization-reservation-models/
    amazon-ec2-reserved-instances.html), and spot capacity is sold below on-demand, so a
    buyer who can rent by the hour pays no more for either:

        default(mode) = min(median(mode rows), median(on-demand rows)).

    Rows above it are usually short-term prepaid blocks (AWS EC2 Capacity Blocks for ML, 1 to
    182 days, data/prices.csv's notes: B200 $14.21 against other providers' on-demand $6.69
    and $8.60), a price for guaranteed capacity, not a discount: those blocks are not Reserved
    Instances, and they sit at about AWS's own on-demand price of the same instance (p6-b200,
    $113.93 per 8-GPU hour = $14.24 per GPU-hour; p5en for H200, $7.91 against the block's
    $7.895, as secondary listings give them), not below it. The quote above is AWS's rule for
    its own reservations; the cap applies it across providers (a buyer who can rent by the
    hour elsewhere pays no more for a "discount" mode), a modelling choice. Returns None when
    no cap applies (another mode, no on-demand row, a median at or below the on-demand one),
    else ``listed`` (the mode's median), ``listed_n``, ``listed_where`` (its rows),
    ``on_demand`` (the on-demand median, the default), ``on_demand_n``, ``on_demand_where``.

    Raises
    ------
    ValueError
        As ``current_prices``: an unknown accelerator or pricing mode.
    """
    if pricing not in DISCOUNT_MODES:
        current_prices(accelerator, pricing)   # its checks
        return None
    rows = current_prices(accelerator, pricing)
    od = current_prices(accelerator, "on_demand")
    if rows.empty or od.empty:
        return None
    listed = float(rows["price_usd_per_gpu_hour"].median())
    hourly = float(od["price_usd_per_gpu_hour"].median())
    if listed <= hourly:
        return None
    return {"listed": listed, "listed_n": len(rows), "listed_where": price_rows_words(rows),
            "on_demand": hourly, "on_demand_n": len(od), "on_demand_where": price_rows_words(od)}


def current_prices(accelerator: str, pricing: str) -> pd.DataFrame:
    """The current price rows a catalogue price of ``accelerator`` and ``pricing`` is taken
    from (``catalogue_price``'s median, the bill's illustrative price range, a claim's price
    range): ``list_prices(accelerator, pricing, current_only=True)`` with each provider once, at
    its shortest published term (``_one_term_per_provider``: GCP's TPU v5p reserved is its
    1-year $2.94, not also its 3-year $1.89).

    Raises
    ------
    ValueError
        As ``list_prices``: an unknown accelerator or pricing mode.
    """
    return _one_term_per_provider(list_prices(accelerator, pricing, current_only=True))


def term_days(df: pd.DataFrame) -> pd.Series:
    """The price rows' published minimum terms in days (``min_term_days`` of data/prices.csv) as
    numbers, NaN where a row states none or the column is absent."""
    if "min_term_days" not in df:
        return pd.Series(float("nan"), index=df.index)
    return pd.to_numeric(df["min_term_days"].replace("", None), errors="coerce")


def _one_term_per_provider(df: pd.DataFrame) -> pd.DataFrame:
    """Price rows with each provider's rows of the same pricing mode cut to its shortest
    published term (``min_term_days``; a row without one sorts first), order kept
    (``catalogue_price``)."""
    if "min_term_days" not in df or df.empty:
        return df
    term = term_days(df)
    keep = (df.assign(_term=term.fillna(-1.0)).sort_values("_term", kind="stable")
            .drop_duplicates(["provider", "pricing"]).index)
    return df.loc[sorted(keep)]


#: How a current catalogue price whose ``available`` column is false is said.
NOT_AVAILABLE = "listed, not available"


def unavailable_prices(accelerator: str, pricing: str = "on_demand") -> list[str]:
    """The current catalogue prices of ``accelerator`` and ``pricing`` that the provider listed
    as not available (no capacity) when they were collected (``list_prices``' ``available``
    column false), one text each: provider, date, price, that status and the row's source.
    Empty when every current row is available (or there is none).

    Raises
    ------
    ValueError
        An unknown accelerator or pricing mode (``list_prices``).
    """
    df = list_prices(accelerator, pricing, current_only=True)
    return [f"{r.provider} {r.date} ${r.price_usd_per_gpu_hour:.2f}, {NOT_AVAILABLE} "
            f"(source: {r.source})" for r in df.itertuples() if not r.available]


# ---------------------------------------------------------------------------------- published runs
@lru_cache(maxsize=1)
def _published_runs() -> pd.DataFrame:
    df = pd.DataFrame(_read_csv("published_runs.csv")).replace("", None)
    text = {"run_id", "model", "hardware", "source", "notes", "catalog_model",
            "catalog_accelerator", "precision", "precision_source"}
    for c in df.columns:
        if c not in text:
            df[c] = pd.to_numeric(df[c])
    return df


def load_published_runs() -> pd.DataFrame:
    """Figures from real training runs (``data/published_runs.csv``), one row per run, sourced.

    Numeric columns are floats (NaN where the source gives nothing); ``catalog_model`` and
    ``catalog_accelerator`` link a run to the catalogues where the architecture and device match.
    ``precision`` ("BF16": 16-bit GEMMs, BF16 or FP16, both on the dense BF16 peak; "FP8") is the
    GEMM precision of a row with a whole-run figure (reported accelerator-hours or days), with
    its source in ``precision_source``; None elsewhere (a benchmark row's precision is its
    ``dtype`` in ``data/validation_mfu.csv``).
    """
    return _published_runs().copy()


