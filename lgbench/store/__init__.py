"""Result store (layer 6): tidy CSV files written row by row as runs finish."""
from lgbench.store.csv_store import (
    ERROR_COLUMNS,
    RUN_COLUMNS,
    ResultStore,
    append_rows,
    read_frame,
    read_rows,
    write_series,
    write_table,
)
from lgbench.store.lock import FolderBusy, FolderLock
from lgbench.store.metadata import METADATA, read_metadata
from lgbench.store.paths import result_folder

__all__ = ["ERROR_COLUMNS", "METADATA", "RUN_COLUMNS", "FolderBusy", "FolderLock", "ResultStore", "append_rows",
           "read_frame", "read_metadata", "read_rows", "result_folder", "write_series", "write_table"]
