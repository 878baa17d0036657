#!/usr/bin/env python3
"""tables_pandas.py: reads every table of a campaign directory with
pandas.read_csv(path, sep='\\t'), as docs/output-formats.md advises, and
checks that pandas sees what the file holds: the header row's column names
(plain identifiers, such as df.kernel reads),
every data row (the first one included), the first row's first field, and
numbers typed as numbers (every column but `kernel`). Prints one line per
table; exits 1 on the first table pandas misreads.

usage: tests/tables_pandas.py DIR TABLE..."""
import sys

import pandas as pd
from pandas.api.types import is_numeric_dtype


def check(path):
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]
    header, rows = lines[0].split("\t"), [l.split("\t") for l in lines[1:]]
    if not rows:
        return "no data rows to check"
    odd = [c for c in header if not c.isidentifier()]
    if odd:
        return f"header row {header}: {odd} not column names (a comment line?)"
    df = pd.read_csv(path, sep="\t")
    if list(df.columns) != header:
        return f"columns {list(df.columns)}, the header row says {header}"
    if len(df) != len(rows):
        return f"{len(df)} rows, the file has {len(rows)}"
    first = str(df.iloc[0, 0]) if header[0] == "kernel" else None
    if first is not None and first != rows[0][0]:
        return f"first row's {header[0]} {first!r}, the file's {rows[0][0]!r}"
    for col in header:
        if col != "kernel" and not is_numeric_dtype(df[col]):
            return f"column {col} is {df[col].dtype}, not a number"
    if "kernel" in header and df["kernel"].dtype != object:
        return f"column kernel is {df['kernel'].dtype}, not text"
    return None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    bad = 0
    for name in sys.argv[2:]:
        why = check(f"{sys.argv[1]}/{name}")
        print(f"{name}: {why or 'read right'}")
        bad |= why is not None
    sys.exit(bad)


if __name__ == "__main__":
    main()
