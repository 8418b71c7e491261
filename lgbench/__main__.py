"""``python -m lgbench`` runs the command-line interface."""
from lgbench.cli import app

app(prog_name="lgbench")
