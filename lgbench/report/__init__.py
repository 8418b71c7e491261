"""Reports of result folders (layer 6): Markdown and self-contained HTML, from the CSV files, the
study copy and metadata.json only."""
from lgbench.report.results import ResultFolder
from lgbench.report.writer import write_index, write_report

__all__ = ["ResultFolder", "write_index", "write_report"]
