"""The flat module paths of llmcost 0.1 (``llmcost.step``, ``llmcost.report``, …) as aliases of
the modules' homes in the rooms (``llmcost.training.step``, ``llmcost.present.report``, …).

``import llmcost.step`` and ``from llmcost.report import run_report`` keep working and give the
very module object of the new path (so ``monkeypatch`` and ``isinstance`` see one module). The
aliases are kept for scenarios, notebooks and scripts written against 0.1; new code imports the
room path. ARCHITECTURE.md lists the rooms.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

#: old flat module name -> its room (``llmcost.<room>.<name>``)
ROOM_OF = {
    **dict.fromkeys(("units", "model", "hardware", "shapes", "catalog", "stacks"), "core"),
    **dict.fromkeys(("compute", "batch", "memory", "parallel", "comm", "overlap", "straggler",
                     "step", "reliability", "accuracy"), "training"),
    **dict.fromkeys(("inference", "rl"), "serving"),
    "scaling": "laws",
    **dict.fromkeys(("scenario", "ranges", "pricing", "ledger", "levers", "claims", "checks"),
                    "bill"),
    **dict.fromkeys(("plots", "widgets", "report", "cli", "twins", "texmath", "glossary"),
                    "present"),
}


def new_path(old: str) -> str:
    """``llmcost.step`` -> ``llmcost.training.step`` (``old`` is the flat module's name)."""
    return f"llmcost.{ROOM_OF[old]}.{old}"


class OldPathFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``llmcost.<old>`` to the module at ``llmcost.<room>.<old>``."""

    def find_spec(self, fullname, path=None, target=None):
        pkg, _, name = fullname.partition(".")
        if pkg != "llmcost" or name not in ROOM_OF:
            return None
        spec = importlib.util.spec_from_loader(fullname, self)
        spec.loader_state = new_path(name)
        return spec

    def create_module(self, spec):
        module = importlib.import_module(spec.loader_state)
        spec.loader_state = module.__spec__  # the import system stamps the alias spec on it next
        return module

    def exec_module(self, module):
        module.__spec__ = module.__spec__.loader_state  # give the module back its own spec


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if not any(isinstance(f, OldPathFinder) for f in sys.meta_path):
        sys.meta_path.append(OldPathFinder())
