"""``report.clean_notebook_metadata``: what a refresh writes does not depend on how the kernel
happened to flush its printed lines (a loaded machine splits one cell's text into several
stream outputs; nbformat's own model of a cell's output is the stream's text, in order)."""
import nbformat

from llmcost.present.report import clean_notebook_metadata


def _cell(outputs):
    cell = nbformat.v4.new_code_cell("print('a'); print('b')")
    cell.outputs = outputs
    return cell


def test_consecutive_stream_outputs_of_one_stream_are_merged_in_order():
    out = nbformat.v4.new_output
    nb = nbformat.v4.new_notebook(cells=[_cell([
        out("stream", name="stdout", text="line 1\n"),
        out("stream", name="stdout", text="line 2"),
        out("stream", name="stdout", text="\nline 3\n")])])
    clean_notebook_metadata(nb)
    outputs = nb.cells[0].outputs
    assert [o.output_type for o in outputs] == ["stream"]
    assert outputs[0].text == "line 1\nline 2\nline 3\n"


def test_other_streams_and_rich_outputs_keep_their_place():
    out = nbformat.v4.new_output
    nb = nbformat.v4.new_notebook(cells=[_cell([
        out("stream", name="stdout", text="a\n"),
        out("stream", name="stderr", text="warning\n"),
        out("stream", name="stdout", text="b\n"),
        out("display_data", data={"text/plain": "<figure>"}),
        out("stream", name="stdout", text="c\n")])])
    clean_notebook_metadata(nb)
    kinds = [(o.output_type, o.get("name")) for o in nb.cells[0].outputs]
    assert kinds == [("stream", "stdout"), ("stream", "stderr"), ("stream", "stdout"),
                     ("display_data", None), ("stream", "stdout")]
    assert nbformat.validate(nb) is None
