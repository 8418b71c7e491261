"""The mechanism file: bodies, joints, force elements, initial-state assembly, parameters and outputs.

A mechanism file describes a rigid multibody system with the primitives of ``lgbench/mbs`` (bodies in
every formulation, joints assembled from constraint primitives, force elements) so that a study runs
on it as on a built-in model. docs/mechanisms.md documents every field; ``check_mechanism`` checks the
names a file uses (bodies, joints, force elements, parameters) after the schema has validated its form.

Numbers may be written as arithmetic on the file's ``parameters`` (``lgbench/mechanisms/expressions.py``);
a study overrides the parameters by name (``params:``) as it overrides a built-in model's.
"""
from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag, model_serializer,
                      model_validator)

from lgbench.exceptions import InputError
from lgbench.mechanisms import expressions

GROUND = "ground"
"""The name by which joints and force elements refer to the fixed frame (global coordinates)."""
IDENTIFIER = r"^[A-Za-z_][A-Za-z0-9_]*$"
LABEL = r"^[A-Za-z0-9_][A-Za-z0-9_ .+-]*$"
MAX_ITEMS = 200
"""Most bodies, joints, force elements or outputs a file may have (the compiled core is dense beyond
the chain's band: a file is input and bounded like every other field)."""
MAX_TABLE_POINTS = 2000
"""Most points of a load's time table (a measured drive torque at 1 ms over 2 s)."""


def _scalar(value: Any) -> float | str:
    """A finite number, or an expression on the parameters (checked for form here, for names later)."""
    if isinstance(value, bool):
        raise ValueError("expected a number or an expression, got true/false")
    if isinstance(value, int | float):
        if isinstance(value, int) and abs(value) > 10**300 or not math.isfinite(value) or abs(value) > 1e300:
            raise ValueError(f"expected a finite number below 1e300 in magnitude, got {str(value)[:30]}")
        return float(value)
    if isinstance(value, str):
        try:
            return expressions.evaluate(value, {})
        except ValueError:
            expressions.parse(value)
            return value
    raise ValueError("expected a number or an expression on the parameters")


def _vector_form(value: Any) -> str:
    """Which form of a vector field ``value`` is meant to be: a parameter's name (text) or numbers."""
    return "@name" if isinstance(value, str) else "@numbers"


def _inertia_form(value: Any) -> str:
    """Which form of an inertia ``value`` is meant to be: a 3x3 matrix (a list of lists) or a vector."""
    return "@matrix" if isinstance(value, list) and value and isinstance(value[0], list) else "@vector"


Scalar = Annotated[Any, AfterValidator(_scalar)]
Vector3 = Annotated[Annotated[list[Scalar], Field(min_length=3, max_length=3), Tag("@numbers")]
                    | Annotated[str, Field(pattern=IDENTIFIER), Tag("@name")], Discriminator(_vector_form)]
"""Three numbers (or expressions), or the name of a parameter that holds three numbers; an error names the
form the value has (the union's members are tagged '@...', which error locations leave out)."""
Matrix3 = Annotated[list[Annotated[list[Scalar], Field(min_length=3, max_length=3)]],
                    Field(min_length=3, max_length=3)]
Inertia = Annotated[Annotated[Vector3, Tag("@vector")] | Annotated[Matrix3, Tag("@matrix")],
                    Discriminator(_inertia_form)]
"""Three principal values (a vector) or a symmetric 3x3 matrix."""
Label = Annotated[str, Field(pattern=LABEL, max_length=60)]
Frame = Literal["global", "bodies"]


def _parameter(value: Any) -> float | list[float]:
    if isinstance(value, list):
        if len(value) != 3:
            raise ValueError("a vector parameter has 3 numbers")
        return [float(_number(item)) for item in value]
    return float(_number(value))


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or isinstance(value, int) and \
            abs(value) > 10**300 or not math.isfinite(value):
        raise ValueError(f"a parameter is a finite number or a list of 3 finite numbers, got {str(value)[:40]}")
    return value


ParameterValue = Annotated[Any, AfterValidator(_parameter)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Orientation(_Strict):
    """The initial orientation of a body, one of four forms (global components)."""

    rotation_matrix: Matrix3 | None = None
    tait_bryan: Vector3 | None = None            # Rxyz angles [rad]: R = Rx Ry Rz (paper 000 eq. 12)
    rotation_vector: Vector3 | None = None       # psi [rad]: R = exp(hat(psi))
    quaternion: Annotated[list[Scalar], Field(min_length=4, max_length=4)] | None = None   # e0 (scalar) first

    @model_validator(mode="after")
    def _one_form(self) -> Orientation:
        given = [name for name in type(self).model_fields if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of rotation_matrix, tait_bryan, rotation_vector, quaternion")
        return self


IDENTITY = Orientation(rotation_matrix=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


class Body(_Strict):
    """A rigid body: mass, inertia about its centre of mass in its body frame (three principal values or
    a symmetric 3x3 matrix), and its initial state: centre-of-mass position and velocity (global), the
    body frame's orientation, the angular velocity (global components unless ``angular_velocity_frame``
    is ``body``)."""

    name: Label
    mass: Scalar
    inertia: Inertia
    position: Vector3 = [0.0, 0.0, 0.0]
    orientation: Orientation = IDENTITY
    velocity: Vector3 = [0.0, 0.0, 0.0]
    angular_velocity: Vector3 = [0.0, 0.0, 0.0]
    angular_velocity_frame: Literal["global", "body"] = "global"


class _Joint(_Strict):
    """Points and axes of a joint: with ``frame: global`` (the default) in global coordinates at the
    initial configuration (``point``, ``axis``; a universal joint's ``axis1`` and ``axis2``), with
    ``frame: bodies`` each in its body's frame (``point1``/``axis1`` on body1, ``point2``/``axis2`` on
    body2; ground's frame is the global one)."""

    name: Label | None = None
    body1: Label
    body2: Label = GROUND
    frame: Frame = "global"
    point: Vector3 | None = None
    point1: Vector3 | None = None
    point2: Vector3 | None = None
    axis: Vector3 | None = None
    axis1: Vector3 | None = None
    axis2: Vector3 | None = None

    GLOBAL: ClassVar[tuple[str, ...]] = ("point",)        # the fields a joint of this type needs, per frame
    BODIES: ClassVar[tuple[str, ...]] = ("point1", "point2")

    @model_validator(mode="after")
    def _fields_of_frame(self) -> _Joint:
        needed = self.GLOBAL if self.frame == "global" else self.BODIES
        given = [name for name in ("point", "point1", "point2", "axis", "axis1", "axis2")
                 if getattr(self, name) is not None]
        missing = [name for name in needed if name not in given]
        extra = [name for name in given if name not in needed]
        if missing or extra:
            raise ValueError(f"a {self.type} joint with frame {self.frame} has the fields {', '.join(needed)}"
                             + (f"; missing {', '.join(missing)}" if missing else "")
                             + (f"; not used: {', '.join(extra)}" if extra else ""))
        if self.body1 == self.body2:
            raise ValueError("a joint connects two different bodies (body1, body2)")
        return self


class SphericalJoint(_Joint):
    type: Literal["spherical"]


class RevoluteJoint(_Joint):
    type: Literal["revolute"]
    GLOBAL: ClassVar[tuple[str, ...]] = ("point", "axis")
    BODIES: ClassVar[tuple[str, ...]] = ("point1", "point2", "axis1", "axis2")


class UniversalJoint(_Joint):
    """Axis1 fixed in body1 stays perpendicular to axis2 fixed in body2."""

    type: Literal["universal"]
    GLOBAL: ClassVar[tuple[str, ...]] = ("point", "axis1", "axis2")
    BODIES: ClassVar[tuple[str, ...]] = ("point1", "point2", "axis1", "axis2")


class PrismaticJoint(_Joint):
    """Body2's point slides on body1's line through point1 along axis1; the relative rotation stays as
    at the initial configuration."""

    type: Literal["prismatic"]
    GLOBAL: ClassVar[tuple[str, ...]] = ("point", "axis")
    BODIES: ClassVar[tuple[str, ...]] = ("point1", "point2", "axis1")


class CylindricalJoint(_Joint):
    """A prismatic joint that leaves the rotation about the axis free."""

    type: Literal["cylindrical"]
    GLOBAL: ClassVar[tuple[str, ...]] = ("point", "axis")
    BODIES: ClassVar[tuple[str, ...]] = ("point1", "point2", "axis1", "axis2")


class DistanceJoint(_Joint):
    """Point1 of body1 stays at ``length`` from point2 of body2 (default: their initial distance)."""

    type: Literal["distance"]
    length: Scalar | None = None
    GLOBAL: ClassVar[tuple[str, ...]] = ("point1", "point2")
    BODIES: ClassVar[tuple[str, ...]] = ("point1", "point2")


Joint = Annotated[SphericalJoint | RevoluteJoint | UniversalJoint | PrismaticJoint | CylindricalJoint
                  | DistanceJoint, Field(discriminator="type")]


class Gravity(_Strict):
    type: Literal["gravity"]
    name: Label | None = None
    acceleration: Vector3
    bodies: list[Label] | None = None          # default: every body


class TimeTable(_Strict):
    """A factor of time given by points: ``factor[j]`` at ``time[j]`` (strictly increasing), linear in
    between, held at the first value before the first time and at the last after the last."""

    time: Annotated[list[Scalar], Field(min_length=2, max_length=MAX_TABLE_POINTS)]
    factor: Annotated[list[Scalar], Field(min_length=2, max_length=MAX_TABLE_POINTS)]

    @model_validator(mode="after")
    def _same_length(self) -> TimeTable:
        if len(self.time) != len(self.factor):
            raise ValueError(f"time and factor need as many points ({len(self.time)} times, "
                             f"{len(self.factor)} factors)")
        return self


class _TimedLoad(_Strict):
    """A load scaled by a factor of time: a linear ramp from 0 over ``ramp_time``, or a ``table``."""

    ramp_time: Scalar | None = None
    table: TimeTable | None = None

    @model_validator(mode="after")
    def _one_schedule(self) -> _TimedLoad:
        if self.ramp_time is not None and self.table is not None:
            raise ValueError("a load has a ramp_time or a table, not both")
        return self

    @model_serializer(mode="wrap")
    def _table_only_if_set(self, handler):
        """Leave ``table: null`` out of the dump: a file's content (its runs' ids) stays what it was before
        time tables existed."""
        data = handler(self)
        if self.table is None:
            data.pop("table", None)
        return data


class Torque(_TimedLoad):
    """A torque on a body, in its body frame (a follower torque) or global; constant, ramped linearly from
    0 over ``ramp_time``, or scaled by a time ``table``."""

    type: Literal["torque"]
    name: Label | None = None
    body: Label
    torque: Vector3
    frame: Literal["body", "global"] = "body"


class PointSpringDamper(_Strict):
    """A linear spring-damper per global axis between a point of a body (``point``: global at the initial
    configuration, or in the body frame with ``frame: bodies``) and a ground point (global)."""

    type: Literal["point_spring_damper"]
    name: Label | None = None
    body: Label
    stiffness: Vector3
    damping: Vector3 = [0.0, 0.0, 0.0]
    point: Vector3 | None = None
    ground_point: Vector3
    frame: Frame = "global"


class SpringDamper(_Strict):
    """A linear spring-damper along the line between point1 of body1 and point2 of body2 (default ground):
    force -(stiffness (l - rest_length) + damping l') along the line, l the points' distance (rest length
    default: the initial distance). Points global at the initial configuration, or with ``frame: bodies``
    each in its body's frame."""

    type: Literal["spring_damper"]
    name: Label | None = None
    body1: Label
    body2: Label = GROUND
    frame: Frame = "global"
    point1: Vector3
    point2: Vector3
    stiffness: Scalar
    damping: Scalar = 0.0
    rest_length: Scalar | None = None

    @model_validator(mode="after")
    def _two_bodies(self) -> SpringDamper:
        if self.body1 == self.body2:
            raise ValueError("a spring-damper connects two different bodies (body1, body2)")
        return self


class PointForce(_TimedLoad):
    """A force on a body at ``point`` (global at the initial configuration; default its centre of mass),
    global or, with ``frame: body``, fixed in the body frame (a follower force); optionally ramped
    linearly from 0 over ``ramp_time`` or scaled by a time ``table``."""

    type: Literal["force"]
    name: Label | None = None
    body: Label
    force: Vector3
    frame: Literal["global", "body"] = "global"
    point: Vector3 | None = None


class ConstantSetpoint(_Strict):
    kind: Literal["constant"]
    value: Scalar = 0.0


class BangBangSetpoint(_Strict):
    """Joint angle from ``initial`` with acceleration +a until ``switch_time``, -a until twice that."""

    kind: Literal["bang_bang"]
    initial: Scalar = 0.0
    acceleration: Scalar
    switch_time: Scalar


class PDController(_Strict):
    """Torque kp (phi_d - phi) + kd (phi_d' - phi') about a revolute joint's axis on body1 and its
    reaction on body2; phi is the joint angle (body1 relative to body2, zero at the initial
    configuration) and phi_d the set point."""

    type: Literal["pd_controller"]
    name: Label | None = None
    joint: Label
    kp: Scalar
    kd: Scalar
    setpoint: Annotated[ConstantSetpoint | BangBangSetpoint, Field(discriminator="kind")] = \
        ConstantSetpoint(kind="constant")


class JointSpringDamper(_Strict):
    """A rotational spring-damper about a revolute joint's axis: torque -(stiffness (phi - rest_angle) +
    damping phi') on body1 and its reaction on body2, phi the joint angle (body1 relative to body2, zero at the
    initial configuration); a PD controller with a constant set point, whose stiffness is counted in the
    potential energy."""

    type: Literal["joint_spring_damper"]
    name: Label | None = None
    joint: Label
    stiffness: Scalar
    damping: Scalar = 0.0
    rest_angle: Scalar = 0.0


Force = Annotated[Gravity | Torque | PointForce | PointSpringDamper | SpringDamper | PDController | JointSpringDamper,
                  Field(discriminator="type")]


class InitialState(_Strict):
    """Assembly of the initial state onto the constraints: position coordinates of ``keep_positions``
    bodies and velocity coordinates of ``keep_velocities`` bodies are held; the others move (least
    squares). The initial state must be consistent to ``tolerance`` after assembly."""

    keep_positions: list[Label] = []
    keep_velocities: list[Label] = []


def _components(value: str) -> str:
    if not value or len(value) > 3 or set(value) - set("xyz") or len(set(value)) != len(value):
        raise ValueError(f"components are some of x, y, z, each once, e.g. xyz or x; got '{value[:10]}'")
    return value


Components = Annotated[str, AfterValidator(_components)]


class _Output(_Strict):
    name: Annotated[str, Field(pattern=IDENTIFIER, max_length=40)]


class PointOutput(_Output):
    """Position or velocity (global) of a point of a body (body frame; default its centre of mass):
    the ``components`` (names NAME_x ...) or the projection on ``direction`` (one output NAME)."""

    kind: Literal["position", "velocity"]
    body: Label
    point: Vector3 = [0.0, 0.0, 0.0]
    components: Components = "xyz"
    direction: Vector3 | None = None


class AngularVelocityOutput(_Output):
    kind: Literal["angular_velocity"]
    body: Label
    frame: Literal["global", "body"] = "global"
    components: Components = "xyz"


class RotationOutput(_Output):
    """The body's rotation matrix, outputs NAME_11 ... NAME_33 (group NAME)."""

    kind: Literal["rotation"]
    body: Label


class JointOutput(_Output):
    """Of a revolute or cylindrical joint: body1's rotation angle relative to body2 about the axis
    (wrapped to (-pi, pi], zero at the initial configuration; with ``continuous: true`` counted on over the
    run's samples, turns included) and its rate; of a prismatic or cylindrical joint: the position of point2
    along the axis from point1 and its rate; of every joint: the resultant force of its rows on body1 and
    their moment about the joint point (global components)."""

    kind: Literal["joint_angle", "joint_rate", "joint_displacement", "joint_velocity", "joint_force", "joint_torque"]
    joint: Label
    components: Components = "xyz"
    continuous: bool = False

    @model_validator(mode="after")
    def _continuous_angle(self) -> JointOutput:
        if self.continuous and self.kind != "joint_angle":
            raise ValueError("'continuous' is an option of a joint_angle output")
        return self

    @model_serializer(mode="wrap")
    def _continuous_only_if_set(self, handler):
        """Leave ``continuous: false`` out of the dump: a file's content (its runs' ids,
        ``runner/mechanism_file.mechanism_data``) stays what it was before the option existed."""
        data = handler(self)
        if not self.continuous:
            data.pop("continuous", None)
        return data


class EnergyOutput(_Output):
    kind: Literal["energy"]
    part: Literal["total", "kinetic", "potential"] = "total"


class PowerOutput(_Output):
    """The power of a torque element (its work closes the energy balance of a driven mechanism)."""

    kind: Literal["power"]
    force: Label


Output = Annotated[PointOutput | AngularVelocityOutput | RotationOutput | JointOutput | EnergyOutput
                   | PowerOutput, Field(discriminator="kind")]


class Mechanism(_Strict):
    """A mechanism file."""

    name: Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$", max_length=60)]
    description: str = ""
    formulations: Annotated[list[Literal["RV", "Rxyz", "EP", "SE3"]], Field(min_length=1)] = ["RV", "Rxyz", "EP"]
    constraint_form: Literal["global", "body"] = "global"
    parameters: dict[Annotated[str, Field(pattern=IDENTIFIER, max_length=60)], ParameterValue] = {}
    bodies: list[Body] = Field(min_length=1, max_length=MAX_ITEMS)
    joints: list[Joint] = Field([], max_length=MAX_ITEMS)
    forces: list[Force] = Field([], max_length=MAX_ITEMS)
    initial_state: InitialState = InitialState()
    outputs: list[Output] = Field(min_length=1, max_length=MAX_ITEMS)

    @model_serializer(mode="wrap")
    def _constraint_form_only_if_set(self, handler):
        """Leave ``constraint_form: global`` out of the dump: a file's content (its runs' ids) stays what it
        was before the field existed."""
        data = handler(self)
        if self.constraint_form == "global":
            data.pop("constraint_form", None)
        return data


def joint_name(mechanism: Mechanism, index: int) -> str:
    joint = mechanism.joints[index]
    return joint.name or f"joint {index + 1}"


def force_name(mechanism: Mechanism, index: int) -> str:
    force = mechanism.forces[index]
    return force.name or f"{force.type} {index + 1}"


def check_mechanism(mechanism: Mechanism, file: str | None = None) -> None:
    """Every name a mechanism uses is defined once: bodies, joints, force elements, outputs, parameters."""
    bodies = [body.name for body in mechanism.bodies]
    _unique(bodies, "bodies", file)
    if GROUND in bodies:
        raise InputError(f"'{GROUND}' names the fixed frame, not a body", file=file,
                         field=f"bodies[{bodies.index(GROUND)}].name")
    for name in mechanism.parameters:
        if name in expressions.FUNCTIONS or name in expressions.CONSTANTS:
            raise InputError(f"'{name}' names a function or a constant of the expressions", file=file,
                             field=f"parameters.{name}")
    joints = [joint_name(mechanism, k) for k in range(len(mechanism.joints))]
    _unique(joints, "joints", file, "name")
    _unique([force_name(mechanism, k) for k in range(len(mechanism.forces))], "forces", file, "name")
    outputs = _output_names(mechanism)
    _unique([name for name, _ in outputs], "outputs", file, "name", [index for _, index in outputs])
    with_ground = bodies + [GROUND]
    for k, joint in enumerate(mechanism.joints):
        _known(joint.body1, with_ground, "body", f"joints[{k}].body1", file)
        _known(joint.body2, with_ground, "body", f"joints[{k}].body2", file)
    for k, force in enumerate(mechanism.forces):
        if isinstance(force, Gravity):
            for j, body in enumerate(force.bodies or []):
                _known(body, bodies, "body", f"forces[{k}].bodies[{j}]", file)
        elif isinstance(force, SpringDamper):
            _known(force.body1, with_ground, "body", f"forces[{k}].body1", file)
            _known(force.body2, with_ground, "body", f"forces[{k}].body2", file)
        elif isinstance(force, PDController | JointSpringDamper):
            _known(force.joint, joints, "joint", f"forces[{k}].joint", file)
            if mechanism.joints[joints.index(force.joint)].type != "revolute":
                what = "a PD controller" if isinstance(force, PDController) else "a joint spring-damper"
                raise InputError(f"{what} acts on a revolute joint", file=file, field=f"forces[{k}].joint",
                                 allowed=[joints[j] for j, joint in enumerate(mechanism.joints)
                                          if joint.type == "revolute"])
        else:
            _known(force.body, bodies, "body", f"forces[{k}].body", file)
    for field, names in (("keep_positions", mechanism.initial_state.keep_positions),
                         ("keep_velocities", mechanism.initial_state.keep_velocities)):
        for j, body in enumerate(names):
            _known(body, bodies, "body", f"initial_state.{field}[{j}]", file)
    torques = [force_name(mechanism, k) for k, force in enumerate(mechanism.forces) if isinstance(force, Torque)]
    for k, output in enumerate(mechanism.outputs):
        if isinstance(output, PointOutput | AngularVelocityOutput | RotationOutput):
            _known(output.body, bodies, "body", f"outputs[{k}].body", file)
        elif isinstance(output, JointOutput):
            _known(output.joint, joints, "joint", f"outputs[{k}].joint", file)
            kinds = JOINT_OUTPUT_TYPES[output.kind]
            found = mechanism.joints[joints.index(output.joint)].type
            if found not in kinds:
                raise InputError(f"{output.kind} is an output of a {' or '.join(kinds)} joint; "
                                 f"'{output.joint}' is {found}", file=file, field=f"outputs[{k}].joint")
        elif isinstance(output, PowerOutput):
            _known(output.force, torques, "torque element", f"outputs[{k}].force", file)
    _check_parameters(mechanism, file)


REACTION_KINDS = ("joint_force", "joint_torque")
"""Joint outputs that are reactions: three components, of every joint type (docs/notes/joint_forces.md)."""
_EVERY_JOINT = ("spherical", "revolute", "universal", "prismatic", "cylindrical", "distance")
JOINT_OUTPUT_TYPES = {"joint_angle": ("revolute", "cylindrical"), "joint_rate": ("revolute", "cylindrical"),
                      "joint_displacement": ("prismatic", "cylindrical"),
                      "joint_velocity": ("prismatic", "cylindrical"),
                      **{kind: _EVERY_JOINT for kind in REACTION_KINDS}}


def output_names(output: Any) -> list[str]:
    """The scalar outputs an output entry gives, in order."""
    if isinstance(output, PointOutput) and output.direction is not None:
        return [output.name]
    if isinstance(output, PointOutput | AngularVelocityOutput) or \
            isinstance(output, JointOutput) and output.kind in REACTION_KINDS:
        return [output.name] if len(output.components) == 1 else [f"{output.name}_{c}" for c in output.components]
    if isinstance(output, RotationOutput):
        return [f"{output.name}_{r}{c}" for r in "123" for c in "123"]
    return [output.name]


def _output_names(mechanism: Mechanism) -> list[tuple[str, int]]:
    return [(name, k) for k, output in enumerate(mechanism.outputs) for name in output_names(output)]


def _check_parameters(mechanism: Mechanism, file: str | None) -> None:
    """Every expression names parameters of the file; a vector field names a vector parameter."""
    parameters = mechanism.parameters
    for field, value in _values(mechanism.model_dump(exclude={"parameters"}, exclude_none=True), ""):
        if isinstance(value, str):
            last = field.split(".")[-1]
            if last in TEXT_FIELDS and not (last == "force" and field.startswith("forces[")):   # a force's vector
                continue
            if field.endswith("]") or not _vector_field(field, mechanism):
                for name in sorted(expressions.names(value)):
                    if name not in parameters or isinstance(parameters[name], list):
                        raise InputError(f"'{name}' is not a scalar parameter of this file", file=file, field=field,
                                         allowed=sorted(k for k, v in parameters.items() if not isinstance(v, list))
                                         or "no scalar parameters defined")
            elif not isinstance(parameters.get(value), list):
                raise InputError(f"'{value}' is not a vector parameter of this file", file=file, field=field,
                                 allowed=sorted(k for k, v in parameters.items() if isinstance(v, list))
                                 or "no vector parameters defined")


VECTOR_FIELDS = {"inertia", "position", "velocity", "angular_velocity", "tait_bryan", "rotation_vector", "point",
                 "point1", "point2", "axis", "axis1", "axis2", "torque", "ground_point", "direction", "force"}
"""Fields that hold three numbers: text there names a vector parameter (elsewhere it is an expression)."""


def _vector_field(field: str, mechanism: Mechanism) -> bool:
    """Whether the field at path ``field`` holds a vector: a gravity's acceleration (forces[k].acceleration)
    is one, a set point's (forces[k].setpoint.acceleration) is not; a point spring-damper's stiffness and
    damping are (one per axis), a line spring-damper's are not."""
    parts = field.split(".")
    if parts[-1] in ("stiffness", "damping"):
        index = int(parts[0].removeprefix("forces[").removesuffix("]"))
        return isinstance(mechanism.forces[index], PointSpringDamper)
    return parts[-1] in VECTOR_FIELDS or parts[-1] == "acceleration" and len(parts) == 2
TEXT_FIELDS = {"name", "description", "type", "kind", "frame", "body", "body1", "body2", "joint", "force",
               "components", "part", "angular_velocity_frame", "constraint_form"}


def _values(data: Any, prefix: str):
    """(field path, leaf value) of a dumped mechanism; lists of names are skipped."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("bodies", "keep_positions", "keep_velocities", "formulations") and \
                    isinstance(value, list) and all(isinstance(item, str) for item in value):
                continue
            yield from _values(value, f"{prefix}.{key}" if prefix else key)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _values(value, f"{prefix}[{index}]")
    else:
        yield prefix, data


def _unique(names: list[str], field: str, file: str | None, key: str | None = None,
            positions: list[int] | None = None) -> None:
    for index, name in enumerate(names):
        if name in names[:index]:
            where = positions[index] if positions else index
            raise InputError(f"'{name}' is defined twice", file=file,
                             field=f"{field}[{where}]" + (f".{key}" if key else ".name"))


def _known(name: str, allowed: list[str], what: str, field: str, file: str | None) -> None:
    if name not in allowed:
        raise InputError(f"unknown {what} '{name}'", file=file, field=field, allowed=allowed)
