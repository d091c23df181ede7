"""The glossary (notebook 10): every term the notebooks use, its definition, its formula, where it
is computed, and the Chinese term of the source material.

The table is ``data/glossary.csv``, one row per term: ``topic``, ``term``, ``aliases``
(semicolon-separated other names and abbreviations), ``chinese``, ``chinese_source`` (whether the
Chinese term comes from the source material or is the usual term, not checked against it),
``definition``, ``formula`` (plain text; empty where there is none), ``notebook`` (the stem of the
notebook that explains it), ``function`` (the ``llmcost`` name that computes it, if any),
``source`` and ``notes``. ``tests/test_glossary.py`` checks that every abbreviation in the
notebooks' headings is a term or an alias, that each named function exists and each notebook too.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

import pandas as pd

from ..core.catalog import DATA_DIR
from .numbering import notebook_number

GLOSSARY_CSV = DATA_DIR / "glossary.csv"
#: Topics in reading order (the notebooks that introduce them).
TOPICS = ("compute", "batch", "memory", "parallelism", "communication", "inference", "scaling",
          "reliability", "cost")


@lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    df = pd.read_csv(GLOSSARY_CSV, dtype=str, keep_default_na=False)
    bad = sorted(set(df["topic"]) - set(TOPICS))
    if bad:
        raise ValueError(f"{GLOSSARY_CSV.name}: topic {bad[0]!r} is not one of {TOPICS}")
    dup = df["term"].str.lower().duplicated()
    if dup.any():
        raise ValueError(f"{GLOSSARY_CSV.name}: term {df['term'][dup].iloc[0]!r} appears twice")
    return df


def load_glossary() -> pd.DataFrame:
    """The glossary table (a copy), in the file's order."""
    return _load().copy()


def names(row) -> list[str]:
    """A row's term and its aliases."""
    return [row["term"], *[a.strip() for a in row["aliases"].split(";") if a.strip()]]


def lookup(name: str) -> dict:
    """The row whose term or alias is ``name`` (case-insensitive).

    Raises
    ------
    ValueError
        ``name`` is not a string, or no term or alias matches it.
    """
    if not isinstance(name, str):
        raise ValueError(f"name={name!r} must be a term (a string)")
    for _, row in _load().iterrows():
        if name.strip().lower() in (n.lower() for n in names(row)):
            return row.to_dict()
    raise ValueError(f"name={name!r} is not in {GLOSSARY_CSV.name} (llmcost.glossary)")


def resolve_function(name: str):
    """The object a glossary row's ``function`` names, e.g. ``llmcost.step_time`` or
    ``llmcost.laws.moe.effective_params``: each dotted part an attribute of the one before, a
    submodule imported when it is not one yet.

    Raises
    ------
    ValueError
        ``name`` is not a dotted ``llmcost`` path, or a part of it does not exist (the message
        names the part).
    """
    if not isinstance(name, str) or not name.startswith("llmcost"):
        raise ValueError(f"name={name!r} must be a dotted path starting with 'llmcost'")
    parts = name.split(".")
    obj, path = importlib.import_module(parts[0]), parts[0]
    for part in parts[1:]:
        path = f"{path}.{part}"
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module(path)
        except ImportError:
            raise ValueError(f"name={name!r}: {path!r} does not exist") from None
    return obj


def markdown_table(topic: str) -> str:
    """One topic's terms as a Markdown table: term (aliases), 中文, definition, formula and where
    it is computed (a link to the notebook and the function's name).

    Raises
    ------
    ValueError
        ``topic`` is not one of ``TOPICS``.
    """
    if topic not in TOPICS:
        raise ValueError(f"topic={topic!r} must be one of {TOPICS}")
    lines = ["| term | 中文 | definition | formula | where |", "|---|---|---|---|---|"]
    for _, r in _load()[_load()["topic"] == topic].iterrows():
        alias = f" ({r['aliases'].replace(';', ',')})" if r["aliases"] else ""
        mark = "" if "source material's term" in r["chinese_source"] else "†"
        where = f"[{notebook_number(r['notebook'])}]({r['notebook']}.ipynb)" if r["notebook"] else ""
        if r["function"]:
            where += f" `{r['function']}`"
        cells = [f"**{r['term']}**{alias}", r["chinese"] + mark, r["definition"],
                 f"{r['formula']}" if r["formula"] else "—", where]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)
