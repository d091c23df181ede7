"""How the workbook's files are numbered: two digits, an optional letter for a notebook that
follows another of the same number (``04b_step_time`` reads after ``04_communication``), an
underscore and a name. Reading order is the sort order of the names ("_" sorts before a letter).
The report, the command line's ``--notebooks``, the twins and the tests list notebooks here;
``NOTEBOOK_DIR`` is the workbook's folder."""

from __future__ import annotations

import re
from pathlib import Path

#: The workbook's notebooks (``notebooks/`` beside ``llmcost/`` and ``data/``).
NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
#: A numbered stem: its number (``"04"``, ``"04b"``) and a name.
NUMBERED_STEM = re.compile(r"(\d\d[a-z]?)_[A-Za-z0-9_]+")


def numbered_files(directory: Path, suffix: str = ".ipynb") -> list[Path]:
    """The numbered files ``NN_name`` / ``NNx_name`` + ``suffix`` of ``directory``, in reading
    order."""
    return sorted(p for p in Path(directory).glob(f"[0-9][0-9]*_*{suffix}")
                  if p.name.endswith(suffix) and NUMBERED_STEM.fullmatch(p.name[:-len(suffix)]))


def notebook_number(stem: str) -> str:
    """A numbered stem's number: ``"04"`` for ``04_communication``, ``"04b"`` for
    ``04b_step_time``. Raises ``ValueError`` naming ``stem`` when it is not numbered."""
    m = NUMBERED_STEM.fullmatch(str(stem))
    if not m:
        raise ValueError(f"stem={stem!r} is not a numbered notebook name (NN_name or NNx_name)")
    return m.group(1)
