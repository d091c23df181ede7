"""bill: the scenario, prices, the whole ledger and its ranges, savings levers, claims checked
against published runs, and scenario checks."""
