"""Analysis (layer 6): pure post-processing of result folders (order fits, error tables, integrator
kinds, expectations and verdicts, published numbers). It reads DataFrames of the CSV files and plain
study data; it imports no engine module and nothing of the runner."""
