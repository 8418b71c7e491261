"""The type and status codes of the compiled core, in one place.

Every code the flat system arrays and the compiled kernels use is a member of one ``IntEnum`` here:
body kinds, force elements, joint primitives and the status an integration ends with. numba treats
the members as integer constants. The compiled kernels use the plain-integer names bound at the bottom
(``FREE``, ``GRAVITY``, ``OK`` ...), the Python side the enums (``Status(code).label``).

The column layouts of the real-valued rows (which parameter of a force element sits in which
column) are named in ``lgbench/mbs/system.py`` next to the builder that fills them.
"""
from enum import IntEnum


class BodyKind(IntEnum):
    """FREE: 6 degrees of freedom about the centre of mass; FIXED_POINT: rotation about a point fixed
    at the global origin (inertia about that point)."""

    FREE = 0
    FIXED_POINT = 1


class Formulation(IntEnum):
    """Rotation formulation of a rigid-body node (lgbench/mbs/formulations.py has the table)."""

    RV = 0
    RXYZ = 1
    F1 = 2
    EP_F1 = 3
    EP = 4
    SE3 = 5


class ForceType(IntEnum):
    """Force elements; their parameters are laid out as named below the enum."""

    GRAVITY = 0
    BODY_TORQUE = 1            # constant torque in the body frame (follower torque)
    GLOBAL_TORQUE = 2          # constant torque in the global frame
    POINT_SPRING_DAMPER = 3    # spring-damper per global axis between a body point and a ground point
    TIMED_TORQUE = 4           # torque (body frame or global) times a factor of time: a ramp or a time table
    JOINT_PD = 5               # PD controller / rotational spring-damper on a revolute joint
    EP_NORM_RATE_TORQUE = 6    # -2 (e.e') J omega on an EP body: paper 004 eq. (9) form of the EP equations
    LINE_SPRING_DAMPER = 7     # spring-damper along the line between a point of a body and one of another (or ground)
    POINT_FORCE = 8            # force at a point of a body, global or in the body frame, times a factor of time
    TIME_TABLE = 9             # no load: up to 8 (time, factor) points of the timed element above it
    MANUFACTURED_LOAD = 16     # loads of the manufactured solution of paper 003 (lgbench/mbs/manufactured.py)


# A force element is a row of ``SystemArrays.force_int`` (its type, the body it acts on and, for
# two-body elements, the other body, -1: ground) and of ``force_real``: its parameters, laid out per
# ``ForceType`` below (``SystemBuilder.add_force(type, body, values)`` takes them in this order).
# EP_NORM_RATE_TORQUE has no parameters; MANUFACTURED_LOAD's are in lgbench/mbs/manufactured.py.
F_TYPE, F_BODY, F_OTHER = range(3)
FORCE_INT_WIDTH = 3
FORCE_REAL_WIDTH = 16
GRAVITY_ACCELERATION = 0   # GRAVITY: [0:3] gravity acceleration (global)
TORQUE = 0                 # BODY_TORQUE (body frame), GLOBAL_TORQUE (global), TIMED_TORQUE: [0:3]
TORQUE_SCHEDULE = 3        # TIMED_TORQUE: [3:5] its factor of time (SCHEDULE_* below),
TORQUE_IN_BODY_FRAME = 5   # 1: a body-frame (follower) torque, 0: global
SPRING_STIFFNESS = 0       # POINT_SPRING_DAMPER: [0:3] stiffness per global axis
SPRING_DAMPING = 3         # [3:6] damping per global axis
SPRING_BODY_POINT = 6      # [6:9] attachment point in the body frame
SPRING_GROUND_POINT = 9    # [9:12] attachment point on ground (global)
PD_AXIS = 0                # JOINT_PD between ``other`` (body 1, -1 = ground) and ``body`` (body 2): [0:3] joint
PD_REFERENCE1 = 3          # axis in body 1; [3:6] zero-angle reference vector in body 1 (normal to the axis);
PD_REFERENCE2 = 6          # [6:9] its partner in body 2;
PD_KP = 9                  # gains Kp and Kd;
PD_KD = 10
PD_SETPOINT_KIND = 11      # the set-point trajectory kind and its three parameters (lgbench/mbs/trajectories.py)
PD_SETPOINT = 12
LINE_POINT1 = 0            # LINE_SPRING_DAMPER between ``body`` and ``other`` (-1 = ground): [0:3] point of body,
LINE_POINT2 = 3            # [3:6] point of other (body frames; global for ground),
LINE_STIFFNESS = 6         # stiffness k, damping d and rest length L0: force -(k (l - L0) + d l') along the line
LINE_DAMPING = 7           # from the other point to the body's point, and its opposite on the other
LINE_REST_LENGTH = 8
FORCE_VECTOR = 0           # POINT_FORCE: [0:3] the force (global, or body frame if FORCE_IN_BODY_FRAME > 0),
FORCE_POINT = 3            # [3:6] its point of application (body frame),
FORCE_IN_BODY_FRAME = 6    # 1: a follower force (body frame), 0: global,
FORCE_SCHEDULE = 7         # [7:9] its factor of time (SCHEDULE_* below)
SCHEDULE_RAMP_TIME = 0     # a factor of time, at the element's schedule column: min(t / ramp time, 1), 1 if <= 0;
SCHEDULE_TABLE_POINTS = 1  # n > 0: instead, linear in the n (time, factor) points of the TIME_TABLE rows
TABLE_POINTS_PER_ROW = 8   # right after the element, 8 a row: time at column 2j, factor at 2j + 1


class JointPrimitive(IntEnum):
    """Constraint primitives (lgbench/mbs/constraints.py); joints are assembled from them."""

    COINCIDENT = 0         # a point of body 1 coincides with a point of body 2 (3 rows)
    PERPENDICULAR = 1      # a vector of body 1 stays normal to a vector of body 2 (1 row)
    POINT_ON_LINE = 2      # a point of body 2 stays on a line of body 1 (2 rows)
    BODY_FRAME_POINT = 3   # R1^T (g - x1) - b = 0, the body-frame spherical joint to ground (3 rows)
    DISTANCE = 4           # (|p1 - p2|^2 - L^2) / 2 = 0 (1 row)
    BODY_FRAME_COINCIDENT = 5  # R1^T (p2 - p1) = 0: COINCIDENT in body 1's frame, paper 002's form (3 rows)
    POINT_ON_PLANE = 6     # a point of body 2 stays on a plane of body 1 (1 row; lgbench/mbs/redundancy.py)

    @property
    def rows(self) -> int:
        return _JOINT_ROWS[self]


_JOINT_ROWS = {JointPrimitive.COINCIDENT: 3, JointPrimitive.PERPENDICULAR: 1, JointPrimitive.POINT_ON_LINE: 2,
               JointPrimitive.BODY_FRAME_POINT: 3, JointPrimitive.DISTANCE: 1,
               JointPrimitive.BODY_FRAME_COINCIDENT: 3, JointPrimitive.POINT_ON_PLANE: 1}


class ChainJoint(IntEnum):
    """Joint of a minimal-coordinate chain row (lgbench/mbs/chain.py)."""

    REVOLUTE = 0
    PRISMATIC = 1


class Setpoint(IntEnum):
    """Prescribed trajectories of PD controllers (lgbench/mbs/trajectories.py)."""

    CONSTANT = 0     # parameters [value]
    BANG_BANG = 1    # parameters [phi_init, acceleration, t_switch]


class Status(IntEnum):
    """How an integration (or one kernel call) ended; ``label`` is the ``status`` column of runs.csv."""

    OK = 0
    DIVERGED = 1
    SINGULAR_PARAMETERISATION = 2
    NEWTON_FAILED = 3
    SINGULAR_MATRIX = 4
    PROJECTION_FAILED = 5
    UNRESOLVED_ROTATION = 6
    STEP_BUDGET_EXHAUSTED = 7
    INTERRUPTED = 8            # stopped on request (Ctrl-C, SIGTERM); never recorded as a result

    @property
    def label(self) -> str:
        return _STATUS_LABELS[self]

    @property
    def message(self) -> str:
        return _STATUS_MESSAGES.get(self, "")


_STATUS_LABELS = {
    Status.OK: "ok", Status.DIVERGED: "diverged", Status.SINGULAR_PARAMETERISATION: "singular",
    Status.NEWTON_FAILED: "failed", Status.SINGULAR_MATRIX: "failed", Status.PROJECTION_FAILED: "failed",
    Status.UNRESOLVED_ROTATION: "diverged", Status.STEP_BUDGET_EXHAUSTED: "failed",
    Status.INTERRUPTED: "interrupted",
}
_STATUS_MESSAGES = {
    Status.DIVERGED: "non-finite state (NaN/Inf): the integration diverged",
    Status.SINGULAR_PARAMETERISATION: "rotation parameterisation singular (Tait-Bryan pitch at +-pi/2: "
                                      "G(theta) not invertible)",
    Status.NEWTON_FAILED: "Newton iteration did not converge within the iteration limit",
    Status.SINGULAR_MATRIX: "singular iteration matrix",
    Status.PROJECTION_FAILED: "projection onto the position constraints Phi = 0 did not converge",
    Status.UNRESOLVED_ROTATION: "a step rotated a body by more than pi: the step size no longer resolves the "
                                "motion (the rotation-vector update is aliased); the integration diverged",
    Status.STEP_BUDGET_EXHAUSTED: "the adaptive step-size control used up its step budget (option max_steps) "
                                  "before t_end",
    Status.INTERRUPTED: "the run was interrupted before t_end",
}

# The members as plain integers for the compiled kernels, which compare them with the int64 columns of
# the system arrays (the kernels were written and measured with plain integer constants).
FREE, FIXED_POINT = map(int, BodyKind)
RV, RXYZ, F1, EP_F1, EP, SE3 = map(int, Formulation)
(GRAVITY, BODY_TORQUE, GLOBAL_TORQUE, POINT_SPRING_DAMPER, TIMED_TORQUE, JOINT_PD, EP_NORM_RATE_TORQUE,
 LINE_SPRING_DAMPER, POINT_FORCE, TIME_TABLE, MANUFACTURED_LOAD) = map(int, ForceType)
(COINCIDENT, PERPENDICULAR, POINT_ON_LINE, BODY_FRAME_POINT, DISTANCE, BODY_FRAME_COINCIDENT,
 POINT_ON_PLANE) = map(int, JointPrimitive)
REVOLUTE, PRISMATIC = map(int, ChainJoint)
CONSTANT, BANG_BANG = map(int, Setpoint)
(OK, DIVERGED, SINGULAR_PARAMETERISATION, NEWTON_FAILED, SINGULAR_MATRIX, PROJECTION_FAILED, UNRESOLVED_ROTATION,
 STEP_BUDGET_EXHAUSTED, INTERRUPTED) = map(int, Status)
