"""Result store (layer 6): tidy CSV files written row by row as runs finish."""
from lgbench.store.csv_store import (
    ERROR_COLUMNS,
    METADATA,
    RUN_COLUMNS,
    ResultStore,
    append_rows,
    read_frame,
    read_rows,
    write_series,
    write_table,
)

__all__ = ["ERROR_COLUMNS", "METADATA", "RUN_COLUMNS", "ResultStore", "append_rows", "read_frame", "read_rows",
           "write_series", "write_table"]
