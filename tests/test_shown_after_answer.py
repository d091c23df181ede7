"""``core.shown.print_after_answer``: a page's note on its ranged inputs follows its answer.

Run in a subprocess with an IPython shell that has a ``kernel`` (as ``shown.in_a_kernel``
reads a Jupyter kernel), so the hook runs as in a notebook, cell by cell."""
import subprocess
import sys

SCRIPT = r'''
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.kernel = object()
def run(src):
    shell.run_cell(src, store_history=True)
run("import llmcost\nfrom llmcost.present import answers")
run("p = llmcost.validate_parameters(mfu=[0.3, 0.5], interactive=False)")
run("print('ANSWER-1', answers.__name__)")
run("print('after')")
# the cell run twice before the answer: one note, the latest
run("p = llmcost.validate_parameters(mfu=[0.2, 0.4], interactive=False)")
run("p = llmcost.validate_parameters(mfu=[0.3, 0.5], interactive=False)")
run("print('ANSWER-2', answers.__name__)")
# run again with a number: the waiting range note is dropped
run("p = llmcost.validate_parameters(mfu=[0.3, 0.5], interactive=False)")
run("p = llmcost.validate_parameters(mfu=0.42, interactive=False)")
run("print('ANSWER-3', answers.__name__)")
# another page begins (a warm kernel's reset restarts the count): not its note
run("p = llmcost.validate_parameters(mfu=[0.3, 0.5], interactive=False)")
shell.reset(new_session=True)
run("import llmcost\nfrom llmcost.present import answers")
run("print('ANSWER-4', answers.__name__)")
'''


def test_the_range_note_follows_the_answer_once_and_only_its_pages():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         check=True).stdout
    note = "mfu is a range (uniform 0.3-0.5): this page uses its midpoint 0.4"
    lines = [x for x in out.splitlines() if x.startswith(("ANSWER", "after", "mfu is"))]
    assert lines == ["ANSWER-1 llmcost.present.answers", note + lines[1][len(note):],
                     "after", "ANSWER-2 llmcost.present.answers", lines[4], "ANSWER-3 "
                     "llmcost.present.answers", "ANSWER-4 llmcost.present.answers"]
    assert lines[1].startswith(note) and lines[4].startswith(note)   # 0.3-0.5, not 0.2-0.4
    assert out.count("mfu is a range") == 2
