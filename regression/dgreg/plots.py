"""The report's figures (Debian's python3-matplotlib, Agg backend, PNG files)."""

import os

from . import tolerances
from .suite import variant_label

VARIANT_STYLE = {
    "cpu/double": ("tab:blue", "o"),
    "cpu/float": ("tab:cyan", "s"),
    "cuda/double": ("tab:red", "^"),
    "cuda/float": ("tab:orange", "v"),
}


def _style(variant):
    """Colour by backend and precision; a variant run by a chosen solver ('cpu/double/mg')
    keeps its colour with a marker of its own."""
    parts = variant.split("/")
    color, marker = VARIANT_STYLE.get("/".join(parts[:2]), ("tab:gray", "d"))
    if len(parts) > 2:
        marker = {"sor": "P", "mg": "x"}.get(parts[2], "d")
    return color, marker


def _convergence(plt, document, path):
    """Max change against iteration for the solv runs of one case per group."""
    runs = [r for r in document["runs"] if r["role"] == "solv" and r.get("history")]
    if not runs:
        return False
    cases = {c["name"]: c for c in document["cases"]}
    chosen = []
    for group in ("born", "kirkwood", "debye_huckel", "protein"):
        members = [r for r in runs if cases[r["case"]]["group"] == group]
        if members:  # the finest grid of the group: the longest convergence
            finest = min(cases[r["case"]]["spacing"] for r in members)
            names = sorted({r["case"] for r in members if cases[r["case"]]["spacing"] == finest})
            chosen.append(names[-1])
    fig, axes = plt.subplots(1, len(chosen), figsize=(4.2 * len(chosen), 3.6), squeeze=False)
    for ax, name in zip(axes[0], chosen):
        for r in runs:
            if r["case"] != name:
                continue
            variant = variant_label(r["backend"], r["precision"], r.get("solver", "auto"))
            color, marker = _style(variant)
            it = [p[0] for p in r["history"]]
            mc = [max(p[1], 1e-16) for p in r["history"]]
            ax.semilogy(it, mc, color=color, marker=marker, markersize=3, lw=1, label=variant)
        ax.axhline(1e-4, color="k", ls=":", lw=0.8)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("iteration")
        ax.set_ylabel("max change (kT/e)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _spacing(plt, document, group, path):
    rows = [r for r in document["rows"] if r["group"] == group and r["kind"] == "analytic"
            and r["quantity"] in ("solvation", "reaction_field") and r["ours"] is not None
            and r["reference"]]
    if len({r["spacing"] for r in rows}) < 2:
        return False
    from .compare import ORDER_CHECKS  # plot what the spacing study judges
    quantities = sorted({r["quantity"] for r in rows if (group, r["quantity"]) in ORDER_CHECKS})
    if not quantities:
        return False
    fig, axes = plt.subplots(1, len(quantities), figsize=(5.2 * len(quantities), 4.2),
                             squeeze=False)
    apbs_rows = [r for r in document["rows"] if r["group"] == group
                 and r["kind"] == "APBS vs analytic" and r["quantity"] == "solvation"
                 and r["ours"] is not None and r["reference"]]
    for ax, q in zip(axes[0], quantities):
        xs_all = []
        for variant in sorted({r["variant"] for r in rows}):
            sel = [r for r in rows if r["quantity"] == q and r["variant"] == variant]
            xs = [r["spacing"] / r["length_scale"] for r in sel]
            ys = [max(abs(r["ours"] / r["reference"] - 1.0), 1e-6) for r in sel]
            xs_all += xs
            color, marker = _style(variant)
            ax.loglog(xs, ys, ls="none", marker=marker, color=color, label="delphi-gpu " + variant)
        if q == "solvation" and apbs_rows:
            ax.loglog([r["spacing"] / r["length_scale"] for r in apbs_rows],
                      [max(abs(r["ours"] / r["reference"] - 1.0), 1e-6) for r in apbs_rows],
                      ls="none", marker="x", color="0.45", label="APBS (same grids)")
        lo, hi = min(xs_all), max(xs_all)
        grid = [lo * (hi / lo) ** (i / 20.0) for i in range(21)]
        ax.loglog(grid, [max(tolerances.SURFACE_FLOOR, tolerances.SURFACE_SLOPE * x)
                         for x in grid], "k--", lw=0.8, label="tolerance")
        ax.loglog(grid, [0.1 * x for x in grid], "k:", lw=0.8, label="slope 1 (expected)")
        ax.set_xlabel("h / L")
        ax.set_ylabel("|relative error|")
        ax.set_title("%s: %s" % (group, q), fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _apbs_scatter(plt, document, path):
    pairs = {}
    for r in document["rows"]:
        if r["quantity"] != "solvation" or r["ours"] is None:
            continue
        if r["kind"] == "APBS" and r["reference"] is not None:
            pairs.setdefault(r["variant"], []).append((r["reference"], r["ours"]))
        elif r["kind"] == "analytic":
            apbs = document["apbs"].get(r["case"], {}).get("solvation_kT")
            if apbs is not None:
                pairs.setdefault(r["variant"], []).append((apbs, r["ours"]))
    if not pairs:
        return False
    values = [v for pts in pairs.values() for p in pts for v in p]
    negative = all(v < 0 for v in values)
    fig, ax = plt.subplots(figsize=(5.2, 5.0))
    for variant, pts in sorted(pairs.items()):
        color, marker = _style(variant)
        xs = [-a if negative else a for a, _ in pts]
        ys = [-b if negative else b for _, b in pts]
        ax.plot(xs, ys, ls="none", marker=marker, color=color, label=variant, alpha=0.8)
    lo = min(abs(v) for v in values) * 0.8
    hi = max(abs(v) for v in values) * 1.25
    if negative:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8, label="identity")
        ax.set_xlabel("−ΔG solvation, APBS (kT)")
        ax.set_ylabel("−ΔG solvation, delphi-gpu (kT)")
    else:
        ax.plot([-hi, hi], [-hi, hi], "k-", lw=0.8, label="identity")
        ax.set_xlabel("ΔG solvation, APBS (kT)")
        ax.set_ylabel("ΔG solvation, delphi-gpu (kT)")
    ax.set_title("delphi-gpu against APBS (same grids)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def make_all(document, out_dir):
    """[(file name, caption)], note.  Without matplotlib: no figures and a note saying why."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], ("not drawn: matplotlib is missing (regression/setup.sh installs it); "
                    "regenerate with regression/make_report.py OUT/results.json")
    figures = []
    jobs = [
        ("convergence.png", "Max change per iteration against iteration, solv runs, each "
         "backend and precision (dotted: the stopping criterion).",
         lambda p: _convergence(plt, document, p)),
        ("born_error.png", "Born ions: |relative error| of the solvation energy against h/a "
         "(log-log), with the tolerance and the expected first-order slope. (The reaction-field "
         "energy of a central charge is exact at any spacing: Gauss's law fixes the induced "
         "charge and it is projected onto the sphere.)",
         lambda p: _spacing(plt, document, "born", p)),
        ("kirkwood_error.png", "Kirkwood spheres: |relative error| against h/L, L = gap between "
         "the charges and the surface.", lambda p: _spacing(plt, document, "kirkwood", p)),
        ("debye_huckel_error.png", "Charged spheres in 0.15 M salt, linear and nonlinear PB: "
         "|relative error| of the solvation energy against h/a.",
         lambda p: _spacing(plt, document, "debye_huckel", p)),
        ("apbs_scatter.png", "Solvation energies, delphi-gpu against APBS on the same grids, "
         "with the identity line.", lambda p: _apbs_scatter(plt, document, p)),
    ]
    for name, caption, draw in jobs:
        if draw(os.path.join(out_dir, name)):
            figures.append((name, caption))
    return figures, "" if figures else "no data to plot"
