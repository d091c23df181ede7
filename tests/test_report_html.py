"""The report's HTML pages: ``report.page_exporter`` writes the page nbconvert's ``HTMLExporter``
writes, with its accessibility pass (a text for every image, focusable inputs and outputs) done
on the text instead of by BeautifulSoup (``report.accessible_html``)."""

import base64

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

pytest.importorskip("nbconvert")
bs4 = pytest.importorskip("bs4")
from nbconvert import HTMLExporter  # noqa: E402

from llmcost.present import report  # noqa: E402

#: A 1×1 PNG.
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082")).decode()


def _notebook():
    """Every case of the pass: images with and without a text (markdown, outputs, upper case,
    self-closing, single quotes), outputs of each kind, a div that has a tabindex, and what it
    must leave alone (a script's and a comment's text)."""
    html = ("<div class='jp-OutputArea-output extra' tabindex=\"-1\">kept in place</div>"
            "<IMG SRC='upper.png'><img src='closed.png'/><img alt=\"\" src=\"empty-alt.png\">"
            "<script>var s = '<div class=\"jp-OutputArea-output\"><img src=\"s.png\">';</script>"
            "<!-- <img src=\"comment.png\"> --><p data-x=\"a > b\">text</p>")
    return new_notebook(cells=[
        new_markdown_cell(f"# A page\n\n![a chart](data:image/png;base64,{PNG})\n\n"
                          "<img src=\"raw.png\"> and <img src=\"b.png\" alt=\"has one\">"),
        new_code_cell("1 + 1", outputs=[
            new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"}),
            new_output("execute_result", data={"text/plain": "2"}, execution_count=1),
            new_output("display_data", data={"text/html": html}),
            new_output("stream", name="stdout", text="<img src='not-a-tag.png'>\n"),
        ], execution_count=1),
    ], metadata={"language_info": {"name": "python"}})


@pytest.mark.parametrize("exclude_input", [True, False])
def test_the_page_is_nbconverts(exclude_input):
    """Parsed as nbconvert parses it, the page is nbconvert's page, character for character:
    the same elements, attributes (in their order) and text; and the case has something for the
    pass to do (images without a text, focusable inputs and outputs)."""
    kw = dict(exclude_input=exclude_input, exclude_input_prompt=True,
              exclude_output_prompt=True)
    nb = _notebook()
    theirs = HTMLExporter(**kw).from_notebook_node(nb)[0]
    mine = report.page_exporter()(**kw).from_notebook_node(nb)[0]
    assert str(bs4.BeautifulSoup(mine, features="html.parser")) == theirs
    assert theirs.count(report.NO_ALT_TEXT) >= 4
    assert theirs.count('tabindex="0"') >= 4 + (0 if exclude_input else 1)
    assert mine != theirs  # not BeautifulSoup's text: the pass did not parse the page


def test_the_pass_leaves_scripts_comments_and_text_alone():
    """Only start tags are changed: a script's and a comment's text, and escaped text, are not;
    a tabindex stays where it was, with nbconvert's value."""
    page = ("<body class=\"jp-Notebook\"><script>'<img src=\"a\">'</script>"
            "<!-- <img src=\"b\"> --><pre>&lt;img src='c'&gt;</pre>"
            "<div class=\"x jp-OutputArea-output\" tabindex=\"-1\" id=\"d\"></div>"
            "<div class=\"jp-OutputArea-outputs\"></div><img src=\"e\"></body>")
    assert report.accessible_html(page) == (
        "<body class=\"jp-Notebook\"><script>'<img src=\"a\">'</script>"
        "<!-- <img src=\"b\"> --><pre>&lt;img src='c'&gt;</pre>"
        "<div class=\"x jp-OutputArea-output\" tabindex=\"0\" id=\"d\"></div>"
        "<div class=\"jp-OutputArea-outputs\"></div>"
        f"<img src=\"e\" alt=\"{report.NO_ALT_TEXT}\"></body>")


def _markdown_notebook():
    """Markdown cells of every kind a page has: a heading, display and inline math, a formula
    that does not convert, a price, a path with "/" (which the disk cache's key must not read as
    a file), a code block, a cell with an attachment; and a markdown output (rendered by the
    template, not from the cache)."""
    return new_notebook(cells=[
        new_markdown_cell("# 01 · How many FLOPs?\n\nSee [02](02_batch_size.ipynb) and "
                          "`data/scenarios/default.yaml`; $3.99/GPU-h."),
        new_markdown_cell("$$C \\approx 6\\,N\\,D$$\n\nwith $N$ parameters and $\\frac{a}{b$ "
                          "(unbalanced).\n\n```python\nx = '$y$'\n```"),
        new_markdown_cell("![chart](attachment:a.png) with $x^2$",
                          attachments={"a.png": {"image/png": PNG}}),
        new_code_cell("1", outputs=[new_output("display_data",
                                               data={"text/markdown": "**$x$** costs $5"})]),
    ], metadata={"language_info": {"name": "python"}})


def test_cached_markdown_cells_are_nbconverts(tmp_path, monkeypatch):
    """A page whose markdown cells come from ``report.rendered_markdown`` (computed, then read
    back from the disk cache) is the page nbconvert's template renders from the cells with their
    math converted (``texmath.notebook_math_to_mathml``), character for character, with the same
    formulas counted as failed."""
    import copy

    from llmcost.present import texmath

    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))

    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")  # computed here, not read
    kw = dict(exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True)
    nb = _markdown_notebook()  # one notebook: its cells' ids are drawn at random
    ref = copy.deepcopy(nb)
    failed = texmath.notebook_math_to_mathml(ref)
    theirs = report.page_exporter()(**kw).from_notebook_node(ref)[0]
    for run in ("computed", "read back"):
        page, failures = report._export_html(copy.deepcopy(nb))
        assert page == theirs, run
        assert failures and sorted(failures) == sorted(failed), run
    assert len(list(tmp_path.glob("rendered_markdown-*.pickle"))) == 1
    assert "<math" in theirs and "tex-failed" in theirs


def test_index_work_raises_where_the_report_reads_it(monkeypatch):
    """The bill computed beside the notebooks (``report.IndexWork``) gives its value, or raises
    its ``ValueError`` when the report reads it; the glance is computed all the same."""
    def bad_bill(values, scenario, *drawn):  # drawn: the samples and headline draws, if made
        raise ValueError("no price")

    monkeypatch.setattr(report, "_bill", bad_bill)
    monkeypatch.setattr(report, "_glance",
                        lambda values, scenario, title, *drawn: (values, title))
    work = report.IndexWork({"a": 1}, {}, "t")
    with pytest.raises(ValueError, match="no price"):
        work.result("bill")
    assert work.result("glance") == ({"a": 1}, "t")


def test_a_figure_is_described_by_its_title_in_the_svg_and_the_page():
    """A reader who cannot see a figure reads its title: the report's kernels print every SVG
    with a ``<title>`` (``plots.describe_svg_figures``), and the page gives it to the image as
    its ``alt`` text, where nbconvert writes "No description has been provided for this image"
    (a new-user trial counted 7 such images in one index notebook, 9 in another)."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from llmcost.present import plots
    fig, (a, b) = plt.subplots(1, 2)
    a.set_title("What does a GPU-hour cost?")
    b.set_xlabel("GPUs")
    b.set_ylabel("days")
    assert plots.figure_description(fig) == "Figure: What does a GPU-hour cost?; days against GPUs"
    a.set_title(r"Cost at \$2.49/GPU-h for $\delta$ = 17 s")  # math text, an escaped price
    assert plots.figure_description(fig) == \
        "Figure: Cost at $2.49/GPU-h for \\delta = 17 s; days against GPUs"
    fig.suptitle("Which plan <fits> & why")
    assert plots.figure_description(fig) == "Figure: Which plan <fits> & why"
    assert plots.figure_description(plt.figure()) == "a figure"
    from matplotlib.backend_bases import FigureCanvasBase
    plain = FigureCanvasBase.print_figure
    try:  # installed for this figure only: other tests compare with matplotlib's own print
        assert plots.describe_svg_figures()
        assert not plots.describe_svg_figures()  # once per process
        buf = io.BytesIO()
        fig.savefig(buf, format="svg")
    finally:
        FigureCanvasBase.print_figure = plain
    svg = buf.getvalue().decode()
    assert "<title>Figure: Which plan &lt;fits&gt; &amp; why</title>" in svg
    uri = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
    page = report.accessible_html(f'<p><img src="{uri}"><img src="x.png"></p>')
    assert 'alt="Figure: Which plan &lt;fits&gt; &amp; why"' in page  # the title, escaped
    assert page.count(report.NO_ALT_TEXT) == 1  # the PNG without a title keeps nbconvert's
    plt.close("all")


@pytest.mark.parametrize("exclude_input", [True, False])
def test_templates_read_back_compiled_give_nbconverts_page(tmp_path, monkeypatch, exclude_input):
    """A page exporter whose templates are read back compiled from the disk cache
    (``report.template_bytecode_cache``: Jinja's bytecode cache, written by the exporter made
    before it) writes the page one that compiles them writes, character for character; with
    the cache off, templates are compiled as before."""
    kw = dict(exclude_input=exclude_input, exclude_input_prompt=True,
              exclude_output_prompt=True)
    nb = _notebook()
    monkeypatch.setenv("LLMCOST_CACHE_DIR", "off")
    assert report.template_bytecode_cache() is None
    compiled = report.page_exporter()(**kw).from_notebook_node(nb)[0]
    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")  # computed here, not read
    for run in ("compiled and kept", "read back"):
        assert report.page_exporter()(**kw).from_notebook_node(nb)[0] == compiled, run
        assert len(list((tmp_path / "jinja2").glob("__jinja2_*.cache"))) >= 3, run


def test_a_template_cache_that_cannot_be_written_is_not_an_error(tmp_path, monkeypatch):
    """Writing a compiled template fails (``OSError``): the page is written all the same."""
    from jinja2 import FileSystemBytecodeCache

    monkeypatch.setenv("LLMCOST_CACHE_DIR", str(tmp_path))

    monkeypatch.setenv("LLMCOST_PREBUILT_DIR", "off")  # computed here, not read

    def refused(self, bucket):
        raise PermissionError("read-only")

    monkeypatch.setattr(FileSystemBytecodeCache, "dump_bytecode", refused)
    kw = dict(exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True)
    nb = _notebook()
    page = report.page_exporter()(**kw).from_notebook_node(nb)[0]
    assert "A page" in page and list((tmp_path / "jinja2").glob("__jinja2_*.cache")) == []


def test_the_parameters_table_writes_lists_as_a_scenario_file_does():
    # A trial: the index's "Parameters used" printed phases as a Python repr,
    # [{'name': 'long-context', 'tokens': 800000000000.0, ...}]; now as YAML's flow style
    from llmcost.present import report
    phases = [{"name": "long-context", "tokens": 8e11, "seq_len": 131072, "mfu": 0.22},
              {"name": "annealing", "tokens": 4e10, "seq_len": 8192}]
    assert report._value_text("phases", phases) == (
        "[{name: long-context, tokens: 8e11, seq_len: 131072, mfu: 0.22}, "
        "{name: annealing, tokens: 4e10, seq_len: 8192}]")
    assert report._value_text("ckpt_async", False) == "false"
