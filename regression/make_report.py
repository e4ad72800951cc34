#!/usr/bin/python3
"""Regenerates a report from a suite's results.json (e.g. one made on a machine without
matplotlib, or to publish a device run): make_report.py RESULTS.json [REPORT_DIR]
REPORT_DIR defaults to the folder report/ beside RESULTS.json."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dgreg import report  # noqa: E402


def main(argv):
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        document = json.load(f)
    out = argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(argv[0]) or ".", "report")
    report.write(document, out)
    failed = sum(1 for r in document["rows"] if not r["passed"])
    print("%s: %d comparisons, %d failed" % (os.path.join(out, "REPORT.md"),
                                             len(document["rows"]), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
