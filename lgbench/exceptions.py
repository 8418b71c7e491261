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
        return _one_line(text)


def _one_line(text: str) -> str:
    """Line breaks and other control characters (e.g. inside a bad key of a study file) shown escaped,
    so that the message stays on one line."""
    return "".join(ch if ch.isprintable() or ch == " " else ascii(ch)[1:-1] for ch in text)
