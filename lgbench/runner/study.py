"""Study files: the YAML schema (pydantic) and ``load_study``, which turns every problem into one
``InputError`` naming the file, the field and the allowed values."""
from __future__ import annotations

import math
import re
import typing
import warnings
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError,
                      field_validator, model_validator)

from lgbench.analysis.accuracy_bands import AccuracyBandRequest, band_error
from lgbench.analysis.claims import unable_to_test
from lgbench.analysis.convergence import format_step
from lgbench.analysis.expectations import Expectation, methods_named
from lgbench.analysis.findings import Finding, missing_evidence
from lgbench.analysis.published import Published, on_grid
from lgbench.exceptions import InputError
from lgbench.runner import bounds
from lgbench.runner.error_measures import MEASURES, quantity_outputs
from lgbench.runner.input_files import read_yaml_mapping, validation_error
from lgbench.runner.mechanism_file import resolve_model_field
from lgbench.mechanisms.schema import Mechanism
from lgbench.runner.single_run import MechanismData, TableauData


NUMBER_TEXT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
"""A number written as text: YAML 1.1 reads ``1e-6`` (no dot) as text, lgbench reads it as the number."""


def _finite(value: int | float) -> float | int:
    if isinstance(value, int) and abs(value) <= 2**53 or isinstance(value, float) and math.isfinite(value):
        return value
    raise ValueError(f"expected a finite number of magnitude below 9e15 or 1e308, got {str(value)[:30]}")


def parameter_value(value: Any) -> Any:
    """Model parameters and options are finite numbers (also written as text, ``1e-6``), text,
    true/false or lists of finite numbers."""
    if isinstance(value, str) and NUMBER_TEXT.fullmatch(value.strip()):
        value = float(value)
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int | float):
        return _finite(value)
    if isinstance(value, list) and all(isinstance(item, int | float) and not isinstance(item, bool)
                                       for item in value):
        return [float(_finite(item)) for item in value]
    raise ValueError("expected a number, text, true/false or a list of numbers")


ParameterValue = Annotated[Any, AfterValidator(parameter_value)]
Name = Annotated[str, Field(min_length=1)]
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Finite = Annotated[float, Field(allow_inf_nan=False)]
Index = Annotated[int, Field(ge=-100, le=100)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Combination(_Strict):
    """A formulation x integrator pair to leave out of the grid."""

    formulation: Name
    integrator: Name


class Steps(_Strict):
    """Step sizes: explicit ``values`` or ``rule: geometric`` with h_n = h0 * base**(1 - n)."""

    values: list[Positive] | None = Field(default=None, min_length=1, max_length=bounds.MAX_STEP_SIZES)
    rule: Literal["geometric"] | None = None
    h0: Positive | None = None
    base: Annotated[float, Field(gt=1, le=1000)] | None = None
    n: tuple[Index, Index] | None = None

    @model_validator(mode="after")
    def _one_form(self) -> Steps:
        geometric = {"h0": self.h0, "base": self.base, "n": self.n}
        if self.values is not None:
            if self.rule is not None or any(value is not None for value in geometric.values()):
                raise ValueError("give either 'values' or 'rule: geometric' with h0, base, n, not both")
        elif self.rule is None:
            raise ValueError("give 'values: [...]' or 'rule: geometric' with h0, base, n")
        else:
            missing = [name for name, value in geometric.items() if value is None]
            if missing:
                raise ValueError(f"the geometric rule needs {', '.join(missing)}")
            if self.n[0] > self.n[1]:
                raise ValueError("'n' is [first, last] with first <= last")
            if self.count() > bounds.MAX_STEP_SIZES:
                raise ValueError(f"'n' spans more than {bounds.MAX_STEP_SIZES} step sizes")
        if self.values is None:
            _distinct_steps(self.sizes(), "'h0', 'base' and 'n' give")
        return self

    @field_validator("values")
    @classmethod
    def _distinct(cls, values: list[float] | None) -> list[float] | None:
        if values is not None:
            _distinct_steps(values, "lists")
        return values

    def count(self) -> int:
        """How many step sizes, without computing them."""
        return len(self.values) if self.values is not None else self.n[1] - self.n[0] + 1

    def sizes(self) -> list[float]:
        """The step sizes in the order they are listed (geometric: largest first)."""
        if self.values is not None:
            return list(self.values)
        first, last = self.n
        return [self.h0 * self.base ** (1 - n) for n in range(first, last + 1)]


def _distinct_steps(sizes: list[float], form: str) -> None:
    """Step sizes that name different runs: they differ in the 11 digits of a run id (``format_step``)."""
    named = [format_step(h) for h in sizes]
    twice = sorted({text for text in named if named.count(text) > 1})
    if twice:
        raise ValueError(f"{form} the step size {twice[0]} twice (step sizes that agree to 11 digits name one run)")


MAX_COEFFICIENT = 1e12
"""Largest magnitude of a tableau coefficient: the elementary weights of the order conditions (products of
up to 8 coefficients summed over up to 16 stages) then stay finite, so that a condition cannot pass on an
infinite residual."""
MAX_COEFFICIENT_TEXT = 100
"""Longest text of a coefficient (``-25360/2187``, a decimal to 50 digits): its numerator and denominator
stay short enough to be read at once."""


def _coefficient(value: Any) -> float:
    """A tableau coefficient: a finite number of magnitude at most ``MAX_COEFFICIENT``, also written as text
    (``0.2``, ``1e-3``: read by ``float``, any exponent at once) or as a fraction of integers (``1/3``,
    ``-2/3``; at most ``MAX_COEFFICIENT_TEXT`` characters)."""
    number = math.inf
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = value if isinstance(value, float) or abs(value) <= MAX_COEFFICIENT else math.inf
    elif isinstance(value, str) and len(value) <= MAX_COEFFICIENT_TEXT:
        try:
            number = float(Fraction(value.strip())) if "/" in value else float(value)
        except (ValueError, ZeroDivisionError, OverflowError):
            pass
    if math.isfinite(number) and abs(number) <= MAX_COEFFICIENT:
        return float(number)
    huge = isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_COEFFICIENT
    shown = "a number beyond 1e12" if huge else value
    raise ValueError(f"expected a number or a fraction such as 1/3, at most 1e12 in magnitude, "
                     f"got {bounds.echo_text(str(shown))!r}")


Coefficient = Annotated[Any, AfterValidator(_coefficient)]
MAX_STAGES = 16
TABLEAU_NAME = r"^[A-Za-z][A-Za-z0-9_.+]*$"
"""A tableau's name: it names an integrator (NAME and NAME-index1), so no '-' and no '/'."""


class TableauEntry(_Strict):
    """An explicit Butcher tableau given as data: ``A`` (s x s, strictly lower triangular), weights ``b``,
    nodes ``c``, optional embedded weights ``e`` with ``embedded_order``, and the ``order`` it claims.
    Loading the study checks the rooted-tree order conditions; the study can then name it as an
    integrator, NAME (RK, or RKMK on Lie group nodes; ``step_control: adaptive`` if it has ``e``) and
    NAME-index1, like the built-in tableaus."""

    name: Annotated[str, Field(pattern=TABLEAU_NAME, max_length=40)]
    order: Annotated[int, Field(ge=1, le=8)]
    A: Annotated[list[Annotated[list[Coefficient], Field(max_length=MAX_STAGES)]], Field(min_length=1,
                                                                                        max_length=MAX_STAGES)]
    b: Annotated[list[Coefficient], Field(min_length=1, max_length=MAX_STAGES)]
    c: Annotated[list[Coefficient], Field(min_length=1, max_length=MAX_STAGES)]
    e: Annotated[list[Coefficient], Field(min_length=1, max_length=MAX_STAGES)] | None = None
    embedded_order: Annotated[int, Field(ge=1, le=8)] | None = None
    description: str = ""

    def data(self) -> TableauData:
        """The tableau as the runs carry it."""
        return TableauData(self.name, self.order, tuple(tuple(row) for row in self.A), tuple(self.b), tuple(self.c),
                           None if self.e is None else tuple(self.e), self.embedded_order, self.description)


class IntegratorEntry(_Strict):
    """An integrator with options, e.g. ``{name: generalized-alpha, label: modified, options: {newton: modified}}``.

    ``label`` tells variants of the same integrator apart in run ids, tables and figures.
    """

    name: Name
    label: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.+-]*$")] = ""
    options: dict[str, ParameterValue] = {}
    steps: Steps | None = None          # this entry's own step sizes (default: the study's)


IntegratorItem = Annotated[Annotated[Name, Tag("@name")] | Annotated[IntegratorEntry, Tag("@entry")],
                           Discriminator(lambda item: "@name" if isinstance(item, str) else "@entry")]
"""A plain integrator name or an entry with options; errors name the member that was meant."""


class Method(typing.NamedTuple):
    """One formulation x integrator (variant) of a study's grid."""

    formulation: str
    integrator: str
    label: str
    options: dict[str, Any]
    steps: list[float]


class Reference(_Strict):
    """The reference: a run of the same model and t_end (``params`` add to the study's parameters),
    or ``exact: true`` for a model with a closed-form solution (e.g. a manufactured solution)."""

    formulation: Name | None = None
    integrator: Name | None = None
    h: Positive | None = None
    options: dict[str, ParameterValue] = {}
    params: dict[str, ParameterValue] = {}
    exact: bool = False

    @model_validator(mode="after")
    def _one_kind(self) -> Reference:
        numerical = {"formulation": self.formulation, "integrator": self.integrator, "h": self.h}
        if self.exact:
            if any(value is not None for value in numerical.values()) or self.options:
                raise ValueError("an exact reference takes no formulation, integrator, h or options")
        else:
            missing = [name for name, value in numerical.items() if value is None]
            if missing:
                raise ValueError(f"a numerical reference needs {', '.join(missing)} (or 'exact: true')")
        return self


class ErrorRequest(_Strict):
    """One error to record per run: a model output (or output group), a measure name and, for the
    measures over time, an optional time ``window: [t0, t1]`` (paper 002 Figs. 6 and 11 use [0, 1]
    and [0.5, 1])."""

    quantity: Name
    measure: Name
    window: tuple[Finite, Finite] | None = None

    @field_validator("window")
    @classmethod
    def _ordered_window(cls, window: tuple[float, float] | None) -> tuple[float, float] | None:
        if window is not None and not window[0] < window[1]:
            raise ValueError("'window' is [t0, t1] with t0 < t1")
        return window

    @property
    def label(self) -> str:
        """The measure column of errors.csv: the measure name, with ``@t0-t1`` for a window."""
        if self.window is None:
            return self.measure
        return f"{self.measure}@{self.window[0]:g}-{self.window[1]:g}"


class SeriesPlot(_Strict):
    """A figure of model outputs over time (one panel per output), one line per method at step size
    ``h`` (default: the grid's largest), plus the reference; ``difference: true`` draws run minus
    reference instead (e.g. paper 002 Fig. 7, paper 004 Figs. 5 and 8); ``log: true`` draws absolute
    values on a logarithmic axis (paper 002 Figs. 9, 10, 15); ``against: OUTPUT`` draws the outputs
    against that output instead of time, a trajectory (paper 000 Fig. 10)."""

    outputs: list[Name] = Field(min_length=1, max_length=8)
    h: Positive | None = None
    methods: list[Name] = []
    difference: bool = False
    log: bool = False                  # absolute values on a logarithmic axis (residuals, errors)
    against: Name | None = None        # abscissa: this output instead of time (a trajectory)
    title: str = ""


class MotionFigure(_Strict):
    """One run of the grid drawn as a sequence of poses (``figures/motion_sequence.png``; paper 001 Fig. 2):
    ``method`` and ``h`` (default: the method's largest step size) name the run, ``frames`` poses evenly
    spaced over [0, t_end], seen in ``view`` (lgbench/plots/animation.py). ``lgbench run`` stores the poses
    in the result folder (``motion.npz``)."""

    method: Name
    h: Positive | None = None
    frames: Annotated[int, Field(ge=2, le=24)] = 8
    view: Literal["auto", "iso", "xz", "yz", "xy"] = "iso"


class Timing(_Strict):
    """How often a short run is timed (``lgbench.runner.single_run.TimingRule``): again while its timed
    runs together took less than ``repeat_below_s`` CPU seconds, up to ``max_runs`` runs; the minimum
    is the run's CPU time, runs.csv records the count and the spread."""

    repeat_below_s: Annotated[float, Field(ge=0, le=600, allow_inf_nan=False)] = 0.2
    max_runs: Annotated[int, Field(ge=1, le=100)] = 5


ModelItem = Annotated[Annotated[Name, Tag("@name")] | Annotated[Mechanism, Tag("@mechanism")],
                      Discriminator(lambda item: "@mechanism" if isinstance(item, dict | Mechanism) else "@name")]
"""A built-in model's name, or a mechanism (a file's content or written inline; lgbench/mechanisms)."""

NAME_PATTERN = r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*$"
"""A study name is a plain file name: it names the result folder (no '/', no leading '.', so no '..')."""


def method_label(formulation: str, integrator: str, label: str = "") -> str:
    """A method's name in tables, figures and expectations: ``formulation-integrator[.label]``."""
    return f"{formulation}-{integrator}" + (f".{label}" if label else "")


class Study(_Strict):
    """A study: one model, a formulation x integrator x step-size grid, a reference and errors."""

    name: Annotated[str, Field(pattern=NAME_PATTERN, max_length=100)]
    description: str = ""
    paper: str = ""
    model: ModelItem
    params: dict[str, ParameterValue] = {}
    t_end: Annotated[float, Field(gt=0, le=bounds.MAX_T_END, allow_inf_nan=False)]
    formulations: list[Name] = Field(min_length=1)
    integrators: list[IntegratorItem] = Field(min_length=1)
    options: dict[str, ParameterValue] = {}
    exclude: list[Combination] = []
    steps: Steps
    reference: Reference
    errors: list[ErrorRequest] = Field(min_length=1)
    samples: Annotated[int, Field(ge=1, le=bounds.MAX_SAMPLES)] | None = None
    max_steps: Annotated[int, Field(ge=1, le=bounds.STEP_CEILING)] | None = None   # step budget per run
    timing: Timing = Timing()
    expectations: list[Expectation] = []
    series_plots: list[SeriesPlot] = []
    motion: MotionFigure | None = None
    profiles: dict[str, dict[str, Any]] = {}
    published: Published | None = None
    findings: list[Finding] = []
    profile: Annotated[str, Field(pattern=NAME_PATTERN, max_length=100)] | None = None   # set by load_study
    tableaus: list[TableauEntry] = []
    accuracy_bands: AccuracyBandRequest | None = None

    def model_name(self) -> str:
        """The built-in model's name or the mechanism's."""
        return self.model if isinstance(self.model, str) else self.model.name

    def method_labels(self) -> list[str]:
        """Table names of the grid's methods: ``formulation-integrator[.label]``."""
        return [method_label(m.formulation, m.integrator, m.label) for m in self.methods()]

    def integrator_entries(self) -> list[IntegratorEntry]:
        """Every ``integrators`` item as an entry; plain names get the study-wide ``options``."""
        return [IntegratorEntry(name=item, options=self.options) if isinstance(item, str)
                else IntegratorEntry(name=item.name, label=item.label, options={**self.options, **item.options},
                                     steps=item.steps)
                for item in self.integrators]

    def integrator_names(self) -> list[str]:
        return [entry.name for entry in self.integrator_entries()]

    def methods(self) -> list[Method]:
        """Formulation x integrator (variant) combinations of the grid, in listed order, without the
        excluded ones (an exclusion names the integrator, so it removes all of its variants)."""
        excluded = {(item.formulation, item.integrator) for item in self.exclude}
        return [Method(formulation, entry.name, entry.label, entry.options,
                       (entry.steps or self.steps).sizes())
                for formulation in self.formulations for entry in self.integrator_entries()
                if (formulation, entry.name) not in excluded]

    def step_sizes(self) -> list[float]:
        """Every step size of the grid (the study's and the entries' own), largest first."""
        return sorted({h for method in self.methods() for h in method.steps} | set(self.steps.sizes()),
                      reverse=True)

    def combinations(self) -> list[tuple[str, str]]:
        """Formulation x integrator pairs of the grid, in listed order, without the excluded."""
        return list(dict.fromkeys((m.formulation, m.integrator) for m in self.methods()))

    def needs_series(self) -> bool:
        return any(MEASURES[request.measure].needs_series or request.window is not None
                   for request in self.errors)


def study_integrators(study: Study) -> dict[str, Any]:
    """The integrators a study can name: the registered ones and those of its own tableaus."""
    registry = dict(integrators())
    for entry in study.tableaus:
        registry.update(entry.data().integrators())
    return registry


def tableau_of(study: Study, integrator: str) -> TableauData | None:
    """The study's tableau behind an integrator name (NAME or NAME-index1), None for a registered one."""
    return next((data for data in (entry.data() for entry in study.tableaus) if integrator in data.integrators()),
                None)


def models() -> dict[str, Any]:
    from lgbench.models import MODELS
    return MODELS


def integrators() -> dict[str, Any]:
    from lgbench.integrators import INTEGRATORS
    return INTEGRATORS


def formulations() -> dict[str, str]:
    from lgbench.mbs import FORMULATIONS
    return FORMULATIONS


def check_name(value: str, allowed: list[str], what: str, field: str, file: str | None = None) -> None:
    """Raise InputError unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise InputError(f"unknown {what}: '{value}'", file=file, field=field, allowed=allowed)


def study_model(study: Study) -> Any:
    """The ``Model`` a study runs: a built-in one, or its mechanism's."""
    if isinstance(study.model, str):
        return model_named(study.model)
    return mechanism_data(study).model()


def mechanism_data(study: Study) -> MechanismData | None:
    """What the runs of a study on a mechanism carry (None for a built-in model)."""
    if isinstance(study.model, str):
        return None
    from lgbench.runner.mechanism_file import mechanism_data as data_of

    return data_of(study.model)


def model_named(name: str, field: str = "model", file: str | None = None) -> Any:
    """The registered model ``name``; InputError listing the registered ones otherwise."""
    registry = models()
    check_name(name, sorted(registry), "model", field, file)
    return registry[name]


def check_parameters(model: Any, params: dict[str, Any], field: str, file: str | None = None,
                     separator: str = ".") -> None:
    """Raise InputError unless every key of ``params`` is a parameter of ``model``."""
    for key in params:
        check_name(key, sorted(model.defaults), f"parameter of model {model.name}",
                   f"{field}{separator}{key}", file)


def load_study(path: str | Path, profile: str | None = None, max_steps: int | None = None,
               copy: bool = False) -> Study:
    """Read, validate and name-check a study file, with the overrides of ``profile`` if given.

    A profile (e.g. ``quick``: coarser grid, shorter t_end, its own expectations) is a mapping under
    ``profiles`` whose fields replace the study's; the profiled study is named ``NAME-PROFILE``.
    Without ``profile`` every profile is validated too. A profile inherits ``published`` (checked
    against the study as written) narrowed to its own methods, step sizes and errors.
    ``max_steps`` raises the step budget per run (as the study's own ``max_steps`` does).
    ``copy``: the file is a result folder's study copy, whose findings cite the expectations of the
    study as written while its profile may check fewer; they were checked when the run started.
    """
    file = str(path)
    data = read_yaml_mapping(path, "a study file is a mapping of fields (name: ..., model: ...)",
                             list(Study.model_fields))
    data = resolve_model_field(data, file)
    base_published = None
    if profile is not None:
        base_published = _checked_base_published(data, file)
        data = _apply_profile(data, profile, file)
    try:
        study = Study.model_validate(data)
    except ValidationError as error:
        raise _input_error(error, file) from None
    except RecursionError:
        raise InputError("the study is nested too deeply", file=file) from None
    if base_published is not None and study.published == base_published:
        study = study.model_copy(update={"published": base_published.narrowed(
            study.method_labels(), study.step_sizes(), [(r.quantity, r.label) for r in study.errors])})
    _check_bounds(study, file, max_steps)
    _check_names(study, file)
    if not copy:
        _check_runnable(study, file)
    _check_expectation_ids(study, file)
    if profile is None and not copy:
        _check_findings(study, file)
    if profile is None:
        for name in study.profiles:
            load_study(path, name, max_steps)
    return study


def _check_bounds(study: Study, file: str, max_steps: int | None) -> None:
    """Grid size, then the step count of every step size (and of the reference) within the budget."""
    entries = study.integrator_entries()
    runs = len(study.formulations) * sum((entry.steps or study.steps).count() for entry in entries)
    bounds.check_grid_size(runs, file)
    budget = bounds.step_budget(study.max_steps, max_steps)
    for field, steps in [("steps", study.steps)] + [(f"integrators[{index}].steps", entry.steps)
                                                    for index, entry in enumerate(entries) if entry.steps]:
        for position, h in enumerate(steps.sizes()):
            where = f"{field}.values[{position}]" if steps.values is not None else f"{field} (h = {h:g})"
            bounds.check_steps(study.t_end, h, budget, where, file, "max_steps: N (or --max-steps N)")
    if study.reference.h is not None:
        bounds.check_steps(study.t_end, study.reference.h, budget, "reference.h", file,
                           "max_steps: N (or --max-steps N)")


def _checked_base_published(data: dict[str, Any], file: str) -> Published | None:
    """The ``published`` numbers of the study as written (before a profile), checked against it."""
    if "published" not in data:
        return None
    try:
        study = Study.model_validate(data)
    except ValidationError as error:
        raise _input_error(error, file) from None
    _check_published(study, file)
    return study.published


def _apply_profile(data: dict[str, Any], profile: str, file: str) -> dict[str, Any]:
    profiles = data.get("profiles") or {}
    if not isinstance(profiles, dict) or profile not in profiles:
        raise InputError(f"no profile '{profile}'", file=file, field="profiles",
                         allowed=sorted(profiles) if isinstance(profiles, dict) else None)
    override = profiles[profile]
    if not isinstance(override, dict):
        raise InputError("a profile is a mapping of fields to replace", file=file, field=f"profiles.{profile}")
    fixed = ("name", "model", "profiles", "findings", "profile")   # findings belong to the study as written
    for key in override:
        if key in fixed or key not in Study.model_fields:
            raise InputError(f"'{key}' cannot be set by a profile", file=file, field=f"profiles.{profile}.{key}",
                             allowed=[f for f in Study.model_fields if f not in fixed])
    merged = {key: value for key, value in data.items() if key != "profiles"}
    merged.update(override)
    merged["name"] = f"{data.get('name')}-{profile}"
    merged["profile"] = profile
    return merged


def study_document(study: Study) -> dict[str, Any]:
    """The study as plain data (profile applied), for the copy kept in a result folder."""
    return study.model_dump(mode="json", exclude={"profiles"}, exclude_defaults=True)


_PATTERN_MEANING = {
    ("name", "name"): ("name (it names the result folder)",
                       "a plain file name: letters, digits, '_', '-', '.', not starting with '.'"),
    ("tableaus", "name"): ("tableau name (it names the integrators NAME and NAME-index1)",
                           "letters, digits, '_', '.', '+', starting with a letter"),
    ("expectations", "id"): ("expectation id", "lower-case letters, digits, '_', '.', '-'"),
    ("findings", "paper"): ("paper number", "three digits, as in ../shared/papers/README.md: 000 ... 004, "
                                            "or lgbench for docs/findings.md"),
    ("findings", "expectations"): ("expectation id", "lower-case letters, digits, '_', '.', '-'"),
    ("findings", "figures"): ("figure file name", "a PNG file name of RESULTS/figures, without folders"),
    ("findings", "section"): ("section key", "lower-case letters and digits, e.g. free, p002"),
    None: ("value", "see docs/studies.md for the field's form"),
}
"""What a text field with a pattern holds, by the first and the last named key of its location, for the
one-line error."""


def _input_error(error: ValidationError, file: str) -> InputError:
    """The first validation problem of a study file as one InputError."""
    return validation_error(error, file, Study, lambda location: _PATTERN_MEANING.get(
        (location[0], next((key for key in reversed(location) if isinstance(key, str)), None)),
        _PATTERN_MEANING[None]))


def _check_unique(names: list[str], field: str, file: str) -> None:
    for index, name in enumerate(names):
        if name in names[:index]:
            raise InputError(f"'{name}' is listed twice", file=file, field=f"{field}[{index}]")


def _check_tableaus(study: Study, file: str) -> None:
    """A study's tableau has a name of its own and satisfies the order conditions it claims."""
    names = set(integrators())
    for index, entry in enumerate(study.tableaus):
        _check_tableau_shape(entry, f"tableaus[{index}]", file)
        try:
            given = entry.data().integrators()
        except InputError as error:
            raise InputError(error.args[0], file=file, field=f"tableaus[{index}]") from None
        if names & set(given):
            raise InputError(f"the tableau name '{entry.name}' is taken", file=file, field=f"tableaus[{index}].name",
                             allowed="a name no registered integrator and no other tableau of the study has")
        names |= set(given)


def _check_tableau_shape(entry: TableauEntry, field: str, file: str) -> None:
    """A tableau of s stages (s = the length of b) has an s x s matrix A and s nodes c (and embedded weights e)."""
    stages = len(entry.b)
    shape = f"A is s x s for s = {stages} stages (the length of b)"
    if len(entry.A) != stages:
        raise InputError(f"A has {len(entry.A)} rows; {shape}", file=file, field=f"{field}.A",
                         allowed=f"{stages} rows")
    for row, coefficients in enumerate(entry.A):
        if len(coefficients) != stages:
            raise InputError(f"row {row + 1} of A has {len(coefficients)} coefficients; {shape}", file=file,
                             field=f"{field}.A[{row}]", allowed=f"{stages} coefficients")
    for name in ("c", "e"):
        values = getattr(entry, name)
        if values is not None and len(values) != stages:
            raise InputError(f"{name} has {len(values)} entries, one per stage (s = {stages}, the length of b)",
                             file=file, field=f"{field}.{name}", allowed=f"{stages} entries")


def _check_names(study: Study, file: str) -> None:
    """Check every name in the study against the registries and the study's own lists."""
    model = model_named(study.model, file=file) if isinstance(study.model, str) else study_model(study)
    _check_tableaus(study, file)
    registry = study_integrators(study)
    integrator_names = sorted(registry)
    check_parameters(model, study.params, "params", file)
    own_formulation = f"formulation of model {model.name}"
    _check_unique(study.formulations, "formulations", file)
    for index, name in enumerate(study.formulations):
        check_name(name, list(model.formulations), own_formulation, f"formulations[{index}]", file)
    entries = study.integrator_entries()
    _check_unique([f"{entry.name} {entry.label}" for entry in entries], "integrators", file)
    for index, entry in enumerate(entries):
        field = f"integrators[{index}]" if isinstance(study.integrators[index], str) else f"integrators[{index}].name"
        check_name(entry.name, integrator_names, "integrator", field, file)
        options = _check_options(registry[entry.name], entry.options, f"integrators[{index}].options", file)
        _check_tolerances(study, registry[entry.name], entry, options, index, file)
    for index, item in enumerate(study.exclude):
        check_name(item.formulation, study.formulations, "formulation of this study",
                   f"exclude[{index}].formulation", file)
        check_name(item.integrator, study.integrator_names(), "integrator of this study",
                   f"exclude[{index}].integrator", file)
    if not study.combinations():
        raise InputError("every formulation x integrator combination is excluded: nothing to run",
                         file=file, field="exclude")
    for formulation, integrator in study.combinations():
        _check_compatible(formulation, registry[integrator], "exclude", file)
    if study.reference.exact:
        if model.exact is None:
            raise InputError(f"model {model.name} has no exact solution; give a numerical reference",
                             file=file, field="reference.exact")
    else:
        check_name(study.reference.formulation, list(model.formulations), own_formulation,
                   "reference.formulation", file)
        check_name(study.reference.integrator, integrator_names, "integrator", "reference.integrator", file)
        _check_compatible(study.reference.formulation, registry[study.reference.integrator],
                          "reference.formulation", file)
        _check_options(registry[study.reference.integrator], study.reference.options, "reference.options",
                       file)
    check_parameters(model, study.reference.params, "reference.params", file)
    quantities = list(model.outputs) + [name for name in model.output_groups if name not in model.outputs]
    for index, request in enumerate(study.errors):
        if not quantity_outputs(request.quantity, list(model.outputs), dict(model.output_groups)):
            raise InputError(f"unknown quantity '{request.quantity}' of model {model.name}", file=file,
                             field=f"errors[{index}].quantity", allowed=quantities)
        check_name(request.measure, sorted(MEASURES), "error measure", f"errors[{index}].measure", file)
    _check_expectations(study, file)
    _check_accuracy_bands(study, file)
    _check_series_plots(study, model, file)
    _check_motion(study, file)
    _check_published(study, file)
    if study.series_plots and study.samples is None:
        raise InputError("series plots need 'samples' (output samples per run)", file=file, field="samples")
    if study.needs_series() and study.samples is None:
        raise InputError("a time-series error measure needs 'samples' (output samples per run)",
                         file=file, field="samples")


def _check_runnable(study: Study, file: str) -> None:
    """What a run checks before it integrates, checked for every run of the study before any is computed:
    the model built with the study's parameters (``params``; the reference's with ``reference.params``) in
    each formulation it runs in, and each integrator able to integrate the model in the formulations it is
    paired with (``single_run.check_integrable``). A built-in model is built only where parameters are
    given or an integrator integrates no constraints (its build with the defaults is tested)."""
    from lgbench.runner.single_run import check_integrable, integrates_constraints

    model = study_model(study)
    registry = study_integrators(study)
    entries = study.integrator_entries()
    pairs = [(formulation, integrator, _integrator_field(study, entries, integrator))
             for formulation, integrator in study.combinations()]
    if not study.reference.exact:
        pairs.append((study.reference.formulation, study.reference.integrator, "reference.integrator"))
    built: dict[tuple[str, bool], int] = {}
    for formulation, integrator, field in pairs:
        own = field == "reference.integrator" and bool(study.reference.params)    # the reference's parameters
        params = {**study.params, **study.reference.params} if own else dict(study.params)
        if not (isinstance(study.model, Mechanism) or params or not integrates_constraints(registry[integrator])):
            continue
        if (formulation, own) not in built:
            built[(formulation, own)] = _constraint_rows(study, model, formulation, params, own, file)
        check_integrable(registry[integrator], integrator, model.name, formulation, built[(formulation, own)],
                         registry, field, file, study=field != "reference.integrator")


def _integrator_field(study: Study, entries: list[IntegratorEntry], integrator: str) -> str:
    """The field of the first ``integrators`` item that names ``integrator``."""
    index = next(k for k, entry in enumerate(entries) if entry.name == integrator)
    return f"integrators[{index}]" if isinstance(study.integrators[index], str) else f"integrators[{index}].name"


def _constraint_rows(study: Study, model: Any, formulation: str, params: dict[str, Any], reference: bool,
                     file: str) -> int:
    """The constraint rows of ``model`` built in ``formulation`` with ``params``; a build's InputError names
    the study's field that gave the parameters (``params.KEY``, ``reference.params.KEY``, ``params``) or, for
    a mechanism's own field, says which one."""
    try:
        with warnings.catch_warnings():           # numpy's on absurd values: the build is only a check
            warnings.simplefilter("ignore")
            return int(model.build(formulation, params).system.sizes[2])
    except InputError as error:
        source = "reference.params" if reference else "params"
        key = (error.field or "").removeprefix("params.")
        if error.field and error.field.startswith("params.") and key in params:
            field = f"reference.params.{key}" if reference and key in study.reference.params else f"params.{key}"
            message = f"{error.args[0]} (model {model.name}, formulation {formulation})"
        else:
            written = study.reference.params if reference else study.params
            field = source if written else "model"
            where = f"model {model.name} in formulation {formulation}" + (" with these parameters" if written else "")
            message = f"{where}: " + (f"field {error.field}: " if error.field else "") + error.args[0]
        raise InputError(message, file=file, field=field, allowed=error.allowed) from None


def _check_compatible(formulation: str, integrator: Any, field: str, file: str) -> None:
    """Each integrator lists the formulations it can integrate (e.g. implicit second-order methods
    need v = q' or a Lie group node, paper 000 footnote 5)."""
    if formulation not in integrator.formulations:
        raise InputError(f"formulation '{formulation}' cannot run with the {integrator.kind} integrator "
                         f"'{integrator.name}'; exclude the combination", file=file, field=field,
                         allowed=list(integrator.formulations))


def _check_tolerances(study: Study, integrator: Any, entry: IntegratorEntry, options: dict[str, Any], index: int,
                      file: str) -> None:
    """A step-size-controlled entry's tolerance (``options`` validated) at each of its step sizes is one
    double precision resolves (``single_run.check_resolvable_tolerance``)."""
    from lgbench.runner.single_run import check_resolvable_tolerance

    field = f"integrators[{index}].steps" if entry.steps else "steps"
    for h in (entry.steps or study.steps).sizes():
        check_resolvable_tolerance(integrator, options, h, study.t_end, field, file)


def _check_options(integrator: Any, options: dict[str, Any], field: str, file: str) -> dict[str, Any]:
    """Options must be ones the integrator knows, with valid values; returns them validated."""
    try:
        validated = integrator.validate_options(options)
    except InputError as error:
        suffix = (error.field or "").removeprefix("options").lstrip(".")
        raise InputError(error.args[0], file=file, field=f"{field}.{suffix}" if suffix else field,
                         allowed=error.allowed) from None
    except (TypeError, ValueError):            # an integrator's check that did not expect this type
        key = next((key for key in options if not _accepted(integrator, {key: options[key]})), None)
        raise InputError("invalid value" + (f" {bounds.echo_text(repr(options[key]))}" if key else ""),
                         file=file, field=f"{field}.{key}" if key else field) from None
    bounds.check_option_ranges(options, field, file)
    return validated


def _accepted(integrator: Any, options: dict[str, Any]) -> bool:
    try:
        integrator.validate_options(options)
    except InputError:
        return True
    except (TypeError, ValueError):
        return False
    return True


CONSTRAINT_SERIES = ("constraint_residual", "velocity_constraint_residual", "lambda_norm")
"""Series columns every constrained run has besides the model outputs (``single_run.constraint_series``)."""


def _check_series_plots(study: Study, model: Any, file: str) -> None:
    """Series plots name model outputs, methods of the grid and a step size of the grid."""
    labels = study.method_labels()
    steps = study.step_sizes()
    for index, item in enumerate(study.series_plots):
        field = f"series_plots[{index}]"
        for position, name in enumerate(item.outputs):
            check_name(name, list(model.outputs) + list(CONSTRAINT_SERIES), f"output of model {model.name}",
                       f"{field}.outputs[{position}]", file)
        for position, name in enumerate(item.methods):
            check_name(name, labels, "method of this study", f"{field}.methods[{position}]", file)
        if item.against is not None:
            check_name(item.against, list(model.outputs) + list(CONSTRAINT_SERIES),
                       f"output of model {model.name}", f"{field}.against", file)
            if item.difference or item.log:
                raise InputError("a trajectory ('against') draws values, not differences or log values",
                                 file=file, field=field)
        _check_step(item.h, steps, "the grid", f"{field}.h", file)
        _check_math_text(item.title, f"{field}.title", file)


def _check_step(h: float | None, steps: list[float], owner: str, field: str, file: str) -> None:
    """A figure's h (None: its default) is one of ``steps``, the step sizes of ``owner``."""
    if h is not None and not any(abs(h - step) <= 1e-9 * step for step in steps):
        raise InputError(f"h = {h:g} is not a step size of {owner}", file=file, field=field,
                         allowed=[f"{step:g}" for step in steps])


def _check_motion(study: Study, file: str) -> None:
    """The motion figure names a method of the grid and one of that method's step sizes (an integrator
    entry may have steps of its own; ``grid.motion_spec`` finds the run by both)."""
    if study.motion is None:
        return
    check_name(study.motion.method, study.method_labels(), "method of this study", "motion.method", file)
    steps = next(m.steps for m in study.methods()
                 if method_label(m.formulation, m.integrator, m.label) == study.motion.method)
    _check_step(study.motion.h, sorted(steps, reverse=True), f"method {study.motion.method}", "motion.h", file)


def _check_math_text(text: str, field: str, file: str) -> None:
    """matplotlib draws the text between two '$' of a line as math: it must parse, or the figure
    cannot be drawn (``lgbench plot`` would stop at it)."""
    if "$" not in text:
        return
    from matplotlib import cbook
    from matplotlib.mathtext import MathTextParser

    for line in text.split("\n"):
        if not cbook.is_math_text(line):
            continue
        try:
            MathTextParser("path").parse(line)
        except (ValueError, RecursionError) as error:
            lines = [part.strip() for part in str(error).splitlines() if part.strip()]
            problem = lines[-1][:120] if lines else type(error).__name__
            raise InputError(f"the math text between '$' cannot be drawn ({problem}); write \\$ for a dollar sign",
                             file=file, field=field) from None


def _check_expectations(study: Study, file: str) -> None:
    """Expectations must name methods of the grid and quantities the study records."""
    labels = study.method_labels()
    quantities = [request.quantity for request in study.errors]
    for index, item in enumerate(study.expectations):
        field = f"expectations[{index}]"
        for key, name in methods_named(item):
            check_name(name, labels, "method of this study", f"{field}.{key}", file)
        quantity = getattr(item, "quantity", None)
        if quantity is not None:
            check_name(quantity, quantities, "error quantity of this study", f"{field}.quantity", file)
        measure = getattr(item, "measure", None)
        if measure is not None:
            recorded = [r.label for r in study.errors if r.quantity == (quantity or study.errors[0].quantity)]
            check_name(measure, recorded, "error measure recorded for this quantity", f"{field}.measure", file)
        column = getattr(item, "column", "")
        if column.startswith("error:"):
            check_name(column.removeprefix("error:"), quantities, "error quantity of this study",
                       f"{field}.column", file)


def _check_accuracy_bands(study: Study, file: str) -> None:
    """The accuracy bands' error must be one the study records."""
    bands = study.accuracy_bands
    if bands is None:
        return
    if bands.quantity is not None:
        check_name(bands.quantity, [r.quantity for r in study.errors], "error quantity of this study",
                   "accuracy_bands.quantity", file)
    quantity, measure = band_error(study)
    check_name(measure, [r.label for r in study.errors if r.quantity == quantity],
               "error measure recorded for this quantity", "accuracy_bands.measure", file)


def _check_expectation_ids(study: Study, file: str) -> None:
    """An expectation's id names one expectation of the study (or profile)."""
    seen: dict[str, int] = {}
    for index, item in enumerate(study.expectations):
        if item.id is None:
            continue
        if item.id in seen:
            raise InputError(f"the id '{item.id}' is already that of expectations[{seen[item.id]}]", file=file,
                             field=f"expectations[{index}].id", allowed="an id unique in the study")
        seen[item.id] = index


def _check_findings(study: Study, file: str) -> None:
    """A claim cites expectations of the study as written (a profile may check fewer of them), each able
    to fail when the claim fails: its window inside the claim's precision."""
    ids = [item.id for item in study.expectations if item.id is not None]
    missing = missing_evidence(study.findings, ids)
    if missing:
        index, number, key = missing[0]
        raise InputError(f"'{key}' is the id of no expectation of this study", file=file,
                         field=f"findings[{index}].claims[{number}].expectations",
                         allowed=_nearest_ids(key, ids) or "ids given to expectations (id: ...)")
    by_id = {item.id: item for item in study.expectations if item.id is not None}
    for index, finding in enumerate(study.findings):
        for number, claim in enumerate(finding.claims):
            for key in claim.expectations:
                why = unable_to_test(by_id[key], claim)
                if why:
                    raise InputError(f"expectation '{key}' cannot test this claim: {why}", file=file,
                                     field=f"findings[{index}].claims[{number}].expectations",
                                     allowed="expectations whose window lies inside the claim's precision")


def _nearest_ids(key: str, ids: list[str], most: int = 8) -> list[str] | str:
    """The ids most like ``key`` (all of them when few), for a one-line error."""
    import difflib

    if len(ids) <= most:
        return ids
    near = difflib.get_close_matches(key, ids, n=most, cutoff=0.0)
    return f"{', '.join(near)} (the nearest of the study's {len(ids)} ids)"


def _check_published(study: Study, file: str) -> None:
    """Published numbers name methods of the grid, error quantities (and measures) the study records
    and step sizes of the grid."""
    if study.published is None:
        return
    labels = study.method_labels()
    for field, method in study.published.methods():
        check_name(method, labels, "method of this study", f"published.{field}.{method}", file)
    recorded = {request.quantity: [] for request in study.errors}
    for request in study.errors:
        recorded[request.quantity].append(request.label)
    for field, key in study.published.error_keys():
        quantity, _, measure = key.partition(":")
        check_name(quantity, list(recorded), "error quantity of this study", f"published.{field}.{key}", file)
        if measure:
            check_name(measure, recorded[quantity], f"error measure recorded for {quantity}",
                       f"published.{field}.{key}", file)
    steps = study.step_sizes()
    for field, h in study.published.steps():
        if not on_grid(h, steps):
            raise InputError(f"h = {h:g} is not a step size of the grid", file=file,
                             field=f"published.{field}", allowed=[f"{step:g}" for step in steps])
