"""Values worked out once per object: the results of one store read share their condition parts,
and a report's figures their result, cohort and slack, so what is derived from one of them (its
presentable form, its citation, its manifest reference) is found again by identity instead of being
recomputed or hashed field by field. Each entry keeps its object, so an id is never taken for
another object's after the first is gone. A table serves one piece of work (a bind, a manifest) and
is bounded: once full it keeps the objects it has (the shared ones come first) and adds no more, so
objects seen once each (a result's own identity) cost a look-up, not a churn of the table."""
from __future__ import annotations

from typing import Callable, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    def __init__(self, limit: int = 4096):
        self._limit = limit
        self._table: dict[int, tuple[K, V]] = {}

    def get(self, obj: K, make: Callable[[K], V]) -> V:
        hit = self._table.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = make(obj)
        if len(self._table) < self._limit:
            self._table[id(obj)] = (obj, value)
        return value
