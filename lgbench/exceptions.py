"""Errors that reach the user as one clear message (never a traceback)."""


class InputError(ValueError):
    """Bad user input: names the file (if any), the field and what is allowed."""

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None,
                 allowed: list[str] | str | None = None):
        self.file = file
        self.field = field
        self.allowed = allowed
        super().__init__(message)

    def __str__(self) -> str:
        where = []
        if self.file:
            where.append(str(self.file))
        if self.field:
            where.append(f"field '{self.field}'")
        text = (": ".join([", ".join(where), self.args[0]]) if where else self.args[0])
        if self.allowed:
            allowed = self.allowed if isinstance(self.allowed, str) else ", ".join(map(str, self.allowed))
            text += f" (allowed: {allowed})"
        return printable(text)


class PluginError(InputError):
    """An installed plugin that cannot be loaded: the input to blame is the plugin, not the study."""


def printable(text: str, keep: str = "") -> str:
    """``text`` with line breaks and other control characters (BEL, NUL, ESC, the bidirectional overrides
    such as RLO ...) shown escaped, as Python writes them in a string (``\\x07``, ``\\u202e``): input echoed on a
    terminal or in a report stays one line and cannot ring, recolour or reorder it. The characters of
    ``keep`` (e.g. a line break where a paragraph may have several lines) are left as they are."""
    return "".join(ch if ch.isprintable() or ch == " " or ch in keep else ascii(ch)[1:-1] for ch in text)


class RunFailed(Exception):
    """A run that a command needs whole (``simulate``'s, a study's reference) did not reach t_end: a numerical
    result (status diverged, singular, failed or timeout), neither bad input nor a bug in lgbench. One line
    names the run (model, formulation, method, h), its status, the time and the cause."""

    def __init__(self, run: str, status: str, cause: str, role: str = "run", note: str = ""):
        super().__init__(run, status, cause, role, note)
        self.run = run
        self.status = status
        self.cause = cause
        self.role = role
        self.note = note

    def __str__(self) -> str:
        note = f"; {self.note}" if self.note else ""
        return printable(f"the {self.role} {self.run} did not reach t_end ({self.status}): {self.cause}{note}")


class EngineError(Exception):
    """An unexpected exception inside the engine during a run (a numba TypingError, an IndexError of a
    kernel): a bug in lgbench, not bad input. Carries what ran ("" outside a run), the exception's class,
    the first line of its message and its traceback as text, so that it crosses intact from a worker
    process or a Dask worker to the main process."""

    def __init__(self, run: str, kind: str, detail: str, trace: str = ""):
        super().__init__(run, kind, detail, trace)
        self.run = run
        self.kind = kind
        self.detail = detail
        self.trace = trace

    @classmethod
    def of(cls, run: str, error: BaseException) -> "EngineError":
        import traceback

        lines = str(error).strip().splitlines()
        detail = lines[0][:300] if lines else "(no message)"
        trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        return cls(run, type(error).__name__, detail, trace)

    def __str__(self) -> str:
        where = f" in the run {self.run}" if self.run else ""
        return printable(f"internal error{where}: {self.kind}: {self.detail}")
