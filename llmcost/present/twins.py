"""Text twins of the notebooks: ``notebooks/text/NN_name.py`` in jupytext's percent format.

A committed notebook carries its outputs (figures as base64), so its diff is hard to review. Each
notebook therefore has a text twin holding only its cells (markdown as ``# %% [markdown]``
comments, code as code, tags such as ``parameters`` kept), so that a change to a notebook reads
as a diff of text. The ``.ipynb`` is the source: the twin is written from it, never the other way.

``llmcost twins`` writes every twin (a new notebook gets one too); ``llmcost refresh-notebooks``
and ``make notebooks`` write the twin of each notebook they re-execute. ``tests/test_twins.py``
fails when a pair disagrees and names ``llmcost twins`` as the fix.
"""

from __future__ import annotations

from pathlib import Path

from .numbering import numbered_files

#: The command that rewrites every twin (named in the test's failure message).
FIX_COMMAND = ".venv/bin/llmcost twins"
#: jupytext format of the twins: percent-format Python, no notebook metadata, cell tags only.
TWIN_FORMAT = {"extension": ".py", "format_name": "percent", "notebook_metadata_filter": "-all",
               "cell_metadata_filter": "tags"}
_HEADER = ("# Text twin of notebooks/{name}, written by `llmcost twins` (jupytext percent format).\n"
           "# Edit the notebook, not this file; the twin exists so that a change reads as a diff.\n"
           "\n")


def twin_path(notebook: Path) -> Path:
    """``notebooks/NN_name.ipynb`` -> ``notebooks/text/NN_name.py``."""
    notebook = Path(notebook)
    return notebook.parent / "text" / f"{notebook.stem}.py"


def twin_text(notebook: Path) -> str:
    """The text the twin of ``notebook`` should hold (header + jupytext percent text)."""
    import jupytext
    import nbformat

    notebook = Path(notebook)
    nb = nbformat.read(notebook, as_version=4)
    return _HEADER.format(name=notebook.name) + jupytext.writes(nb, fmt=TWIN_FORMAT)


def write_twin(notebook: Path) -> Path:
    """Write (or rewrite) the twin of one notebook; returns its path."""
    path = twin_path(notebook)
    path.parent.mkdir(exist_ok=True)
    path.write_text(twin_text(notebook), encoding="utf-8")
    return path


def _cells(nb) -> list[tuple]:
    return [(c.cell_type, c.source.strip(), tuple(c.metadata.get("tags", []))) for c in nb.cells]


def twin_mismatch(notebook: Path) -> str | None:
    """None when the twin holds the notebook's cells (type, source, tags), else what differs.

    The comparison is cell by cell after parsing the twin with jupytext, so a jupytext version
    that spaces the text differently does not count as a difference.
    """
    import jupytext
    import nbformat

    notebook = Path(notebook)
    path = twin_path(notebook)
    if not path.exists():
        return f"{path} is missing"
    text = path.read_text(encoding="utf-8")
    header = _HEADER.format(name=notebook.name)
    if not text.startswith(header):
        return f"{path} does not start with the header naming {notebook.name}"
    want = _cells(nbformat.read(notebook, as_version=4))
    have = _cells(jupytext.reads(text[len(header):], fmt=TWIN_FORMAT))
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            return (f"cell {i} differs: notebook has {w[0]} {w[1][:60]!r}, "
                    f"twin has {h[0]} {h[1][:60]!r}")
    if len(want) != len(have):
        return f"notebook has {len(want)} cells, twin {len(have)}"
    return None


def orphan_twins(notebook_dir: Path) -> list[Path]:
    """Twins whose notebook no longer exists (a renamed or deleted notebook)."""
    return [t for t in numbered_files(Path(notebook_dir) / "text", ".py")
            if not (Path(notebook_dir) / f"{t.stem}.ipynb").exists()]


def sync_twins(notebooks: list[Path], notebook_dir: Path) -> list[Path]:
    """Write the twin of every notebook given and delete twins whose notebook is gone."""
    written = [write_twin(nb) for nb in notebooks]
    for orphan in orphan_twins(notebook_dir):
        orphan.unlink()
    return written
