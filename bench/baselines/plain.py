"""What every hand-written baseline writes the same way: marks in brackets, the caveat and legend."""

SHORT = "MLPerf figures hold only under their stated conditions; compare them inside one cohort."
LEGEND = "The MLPerf name and logo are registered and unregistered trademarks of MLCommons Association."


def mark(i: int) -> str:
    """a, b, ..., z, aa, ...: the i-th mark (from 0)."""
    name, i = "", i + 1
    while i:
        i, rem = divmod(i - 1, 26)
        name = chr(97 + rem) + name
    return name
