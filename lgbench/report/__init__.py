"""Reports of result folders (layer 7): Markdown and self-contained HTML, from the CSV files,
metadata.json and the folder's study (given as data) only, through the analysis and the store."""
from lgbench.report.results import ResultFolder
from lgbench.report.writer import write_index, write_report

__all__ = ["ResultFolder", "write_index", "write_report"]
