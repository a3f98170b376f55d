"""A key given more than once in one record (a JSON object, an accuracy dict): the one rule for it.

A repeat with the same value says the same thing twice, and is accepted. Different values make the
field ambiguous (Python keeps the last, other readers the first): where exportguard reads that
field, the record is refused, because no one can tell which value the source means; where it does
not, nothing it stores depends on the answer, and the repeat is a warning recorded with the row.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection, Iterable

from ..errors import SourceError


@dataclass(frozen=True)
class Repeat:
    """A key given more than once with different values: where (``a.b`` for a nested key) and the
    values as the source wrote them, in order."""
    path: str
    values: tuple[str, ...]

    @property
    def field(self) -> str:
        """The record's own field the repeat is in (its top-level key)."""
        return self.path.split(".")[0].split("[")[0]


def judge(repeats: Iterable[Repeat], read: Collection[str], what: str, reason: str,
          where: Callable[[Repeat], str] = lambda r: "") -> tuple[str, ...]:
    """Raise ``SourceError(reason)`` for the first repeat in a field of ``read``, located by
    ``where``; return one warning per repeat in any other field. ``what`` names the record in the
    words ("the system description"), or is empty where the locator names it."""
    what = f"{what}: " if what else ""
    warnings = []
    for r in repeats:
        if r.field in read:
            raise SourceError(reason, f"{what}key {r.path!r} is given {_times(r)} with different values "
                                      f"({_values(r)}); exportguard reads this field and cannot tell which "
                                      "value the source means", where(r))
        warnings.append(f"{what}key {r.path!r} is given {_times(r)} with different values ({_values(r)}), in a "
                        "field exportguard does not read: a warning, not a reason to refuse the row")
    return tuple(warnings)


def _times(r: Repeat) -> str:
    return "twice" if len(r.values) == 2 else f"{len(r.values)} times"


def _values(r: Repeat) -> str:
    shown = [v if len(v) <= 40 else v[:40] + "..." for v in r.values[:4]]
    return ", ".join(shown) + (", ..." if len(r.values) > 4 else "")
