"""Write mortyenv/data/tiles.csv, the default 104-tile table (RULES.md section 1).

Run it only to regenerate the shipped table; tests check the file against these rules.
Tile ids follow the table's row order: regular tiles by number 1..24, each number as
GOLD, SILVER, BLACK, BLACK (id = 4*(n-1)+k), then the 8 blue tiles by number (96..103).
"""

from __future__ import annotations

import csv
from pathlib import Path

PAIRS = ["EM", "MU", "UC", "CE", "EU", "MC", "UE", "CM", "EC", "ME", "UM", "CU"]
NAMES = {"E": "EYE", "M": "MANDRAKE", "U": "MUSHROOM", "C": "CLOUD"}
REGULAR_LIDS = ["GOLD", "SILVER", "BLACK", "BLACK"]
BLUE_NUMBERS = [3, 6, 9, 12, 13, 16, 19, 22]


def build_rows() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for number in range(1, 25):
        for lid in REGULAR_LIDS:
            rows.append({"id": len(rows), "number": number, "lid": lid})
    for number in BLUE_NUMBERS:
        rows.append({"id": len(rows), "number": number, "lid": "BLUE"})
    # Within each lid group, the k-th tile by (number, id) takes pair k mod 12.
    for lid in ("GOLD", "SILVER", "BLACK", "BLUE"):
        group = sorted((r for r in rows if r["lid"] == lid), key=lambda r: (r["number"], r["id"]))
        for k, row in enumerate(group):
            front, back = PAIRS[k % 12]
            row["front"], row["back"] = NAMES[front], NAMES[back]
    return rows


def main() -> None:
    path = Path(__file__).resolve().parents[2] / "mortyenv" / "data" / "tiles.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "number", "lid", "front", "back"])
        writer.writeheader()
        writer.writerows(build_rows())
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
