"""Reading shelves: what the badges (section 6) and the scoring (sections 5, 7) look at.

`Shelves` wraps tile ids and faces of any leading shape (..., R, C) and derives, on first
use, the ingredient shown, number and lid of every cell. Empty cells read ingredient -1,
number 0 and lid `Tables.no_lid`, so no rule needs a separate "is it filled" branch.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from mortyenv.engine.tables import Tables, ingredient_of


class Shelves:
    def __init__(self, t: Tables, tiles: np.ndarray, faces: np.ndarray):
        self.t = t
        self.tiles = tiles
        self.faces = faces

    @cached_property
    def filled(self) -> np.ndarray:
        return self.tiles >= 0

    @cached_property
    def ingredient(self) -> np.ndarray:
        return ingredient_of(self.t, self.tiles, self.faces)

    @cached_property
    def number(self) -> np.ndarray:
        return np.take(self.t.number, self.tiles.astype(np.intp) + 1).astype(np.int16)

    @cached_property
    def lid(self) -> np.ndarray:
        return np.take(self.t.lid, self.tiles.astype(np.intp) + 1)

    @cached_property
    def full_columns(self) -> np.ndarray:
        """(..., C) bool."""
        return self.filled.all(axis=-2)

    @cached_property
    def ingredient_counts(self) -> np.ndarray:
        """(..., I) tiles showing each ingredient."""
        ing = self.ingredient
        counts = [(ing == i).sum(axis=(-2, -1)) for i in range(self.t.num_ingredients)]
        return np.stack(counts, axis=-1)


def all_different(values: np.ndarray, axis: int) -> np.ndarray:
    """True where the entries along `axis` are pairwise different (rows are few)."""
    values = np.moveaxis(values, axis, -1)
    n = values.shape[-1]
    result = np.ones(values.shape[:-1], dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            result &= values[..., i] != values[..., j]
    return result
