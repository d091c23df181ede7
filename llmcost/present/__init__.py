"""present: what a reader sees: figures, widgets, the report, the command line, the notebooks'
text twins, TeX math for the HTML pages and the glossary."""
