"""delphi-gpu's regression suite (see regression/README.md): cases, references, comparisons and
the report.  Standard library only; matplotlib (figures) and numpy (faster map comparisons) are
used when present."""
