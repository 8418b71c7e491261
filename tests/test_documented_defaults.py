"""docs/mechanisms.md states the implicit integrators' default Newton settings where a user writing a mechanism
looks; its table must say what the code does."""
import re
from pathlib import Path

import yaml

from lgbench.integrators.hht import HHT_DEFAULTS
from lgbench.integrators.implicit import NEWTON_DEFAULTS

DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "mechanisms.md"


def documented_defaults() -> dict:
    """The (option, default) rows of the table under "## Default Newton settings", values read as YAML
    (``1e-8`` as a number, which YAML 1.1 reads as text)."""
    section = DOCUMENT.read_text().split("## Default Newton settings", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", section, flags=re.MULTILINE)
    return {name: _value(text) for name, text in rows}


def _value(text: str):
    value = yaml.safe_load(text)
    try:
        return float(value) if isinstance(value, str) else value
    except ValueError:
        return value


def test_the_documented_newton_defaults_are_the_codes():
    documented = documented_defaults()
    assert {"rho_inf", "alpha", "newton_rtol", "newton_atol", "max_iterations"} <= set(documented)
    code = {**NEWTON_DEFAULTS, **HHT_DEFAULTS}
    for name, value in documented.items():
        assert code[name] == value, f"docs/mechanisms.md: {name} = {value!r}, the code's default is {code[name]!r}"
    assert NEWTON_DEFAULTS["rho_inf"] == documented["rho_inf"] and "rho_inf" not in HHT_DEFAULTS
