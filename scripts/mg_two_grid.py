#!/usr/bin/python3
"""Two-grid rates of candidate multigrid transfers on the multigrid tests' protein-like medium.

A research tool (not part of the build or the tests): it measures how many conjugate-gradient
iterations a two-grid preconditioner needs when the coarse problem is solved exactly, for the
transfer the solver uses (2x2x2 aggregation, its correction scaled) and for candidates that
would replace it on the first coarse level.  The solver's W-cycle solves the first coarse level
about exactly (three visits per level need the cycles of two, docs/MULTIGRID.md), so these
counts bound what a transfer can give before its cost per cycle is paid.

The medium is the one delphi_gpu/tests/mg_problem.h builds (12 spheres of eps 2 in eps 80 from
the same random sequence, 16 alternating unit charges, optional salt outside a 15 A shell; the
salt term here is only of the right order), discretised with DelPhi's 7-point stencil on the
interior, zero on the faces (the rates do not depend on the boundary values).  The smoother is
the solver's: red-black Gauss-Seidel, colour 0 then 1 before the coarse correction, 1 then 0
after.

Transfers (P: coarse to fine; restriction P^T; coarse operator P^T A P):
  agg   piecewise constant on 2x2x2 aggregates (x -> (x + 1) / 2), correction scaled (1.8)
  sa    smoothed aggregation, P = (I - omega / rho D^-1 A) P_agg: a 27-point coarse operator
  tri   vertex-centred trilinear interpolation (coarse points at even interior indices)
  sa7   smoothed aggregation with its Galerkin operator lumped to 7 points (lump below, --lump),
        so that every coarse level keeps the solver's 7-point form
  sau7  the same, P smoothed by the uniform part of the stencil only (1/6 per neighbour, no
        permittivity weights: what a solver could apply without the boundary points' lists)

With --coarse w the first coarse level is solved as in the solver instead: a W-cycle of 2x2x2
aggregation below it (on the candidate's 27-point operator too), its sweeps in 8 colours (a
proper Gauss-Seidel order for 27 points) or 2, --coarse-sweeps before and after on each level
(--sweeps is the fine level's).

Needs numpy and scipy (Debian: python3-numpy, python3-scipy).  Examples:
  /usr/bin/python3 scripts/mg_two_grid.py --sizes 33,49,65
  /usr/bin/python3 scripts/mg_two_grid.py --sizes 65,97 --coarse w
  /usr/bin/python3 scripts/mg_two_grid.py --sizes 97,129 --coarse w --colours 2 --sweeps 3 \
      --transfers agg,sa7
"""
import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl


def sequence(seed=12345):
    """The tests' linear congruential sequence (mg_problem_random), values in [0, 1)."""
    state = [seed]

    def draw():
        state[0] = (state[0] * 1664525 + 1013904223) & 0xFFFFFFFF
        return (state[0] >> 8) / 16777216.0

    return draw


def build_medium(n, salt):
    """Face permittivities eps[a][z, y, x] (face between (x, y, z) and its +a neighbour), the
    charges and an ionic term per point, as mg_problem_build places them."""
    scale = (n - 1) / 48.0
    eps = [np.full((n, n, n), 80.0) for _ in range(3)]
    draw = sequence()
    centre = (n - 1) / 2.0
    z, y, x = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
    for _ in range(12):
        dx = (draw() - 0.5) * 16 * scale
        dy = (draw() - 0.5) * 16 * scale
        dz = (draw() - 0.5) * 16 * scale
        radius = (4.0 + 3.0 * draw()) * scale
        cx, cy, cz = centre + dx, centre + dy, centre + dz
        for a, (mx, my, mz) in enumerate(((x + 0.5, y, z), (x, y + 0.5, z), (x, y, z + 0.5))):
            inside = (mx - cx) ** 2 + (my - cy) ** 2 + (mz - cz) ** 2 < radius * radius
            eps[a][inside] = 2.0
    charge = np.zeros((n, n, n))
    for i in range(16):
        cx = int(round(centre + (draw() - 0.5) * 12 * scale))
        cy = int(round(centre + (draw() - 0.5) * 12 * scale))
        cz = int(round(centre + (draw() - 0.5) * 12 * scale))
        charge[cz, cy, cx] += -1.0 if i % 2 else 1.0
    ionic = np.zeros((n, n, n))
    if salt:
        far = (x - centre) ** 2 + (y - centre) ** 2 + (z - centre) ** 2 > (15.0 * scale) ** 2
        ionic[far] = 1.2 * scale * scale  # kappa^2 h^2 eps of 0.15 M, about
    return eps, charge, ionic


def build_operator(n, eps, ionic):
    """The SPD 7-point matrix on the (n - 2)^3 interior (x fastest) and each unknown's colour."""
    m = n - 2
    count = m ** 3
    inner = np.arange(1, n - 1)
    z, y, x = (v.ravel() for v in np.meshgrid(inner, inner, inner, indexing="ij"))

    def index(xx, yy, zz):
        return (xx - 1) + m * ((yy - 1) + m * (zz - 1))

    own = index(x, y, z)
    diagonal = ionic[z, y, x].copy()
    rows, cols, vals = [], [], []
    for a, (ex, ey, ez) in enumerate(((1, 0, 0), (0, 1, 0), (0, 0, 1))):
        plus = eps[a][z, y, x]
        minus = eps[a][z - ez, y - ey, x - ex]
        diagonal += plus + minus
        xn, yn, zn = x + ex, y + ey, z + ez
        inside = (xn <= n - 2) & (yn <= n - 2) & (zn <= n - 2)
        rows.append(own[inside])
        cols.append(index(xn[inside], yn[inside], zn[inside]))
        vals.append(-plus[inside])
    r, c, v = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    diag_index = np.arange(count)
    matrix = sp.coo_matrix(
        (np.concatenate([v, v, diagonal]),
         (np.concatenate([r, c, diag_index]), np.concatenate([c, r, diag_index]))),
        shape=(count, count)).tocsr()
    return matrix, (x + y + z) & 1


def aggregation_1d(m):
    coarse = (m + 1) // 2
    fine = np.arange(1, m + 1)
    return sp.csr_matrix((np.ones(m), (fine - 1, (fine + 1) // 2 - 1)), shape=(m, coarse))


def trilinear_1d(m):
    coarse = (m - 1) // 2
    rows, cols, vals = [], [], []
    for i in range(1, m + 1):
        if i % 2 == 0:
            rows.append(i - 1), cols.append(i // 2 - 1), vals.append(1.0)
            continue
        for j in ((i - 1) // 2, (i + 1) // 2):
            if 1 <= j <= coarse:
                rows.append(i - 1), cols.append(j - 1), vals.append(0.5)
    return sp.csr_matrix((vals, (rows, cols)), shape=(m, coarse))


def tensor(p1):
    return sp.kron(sp.kron(p1, p1), p1).tocsr()


def smoothed(matrix, p, omega):
    """(I - omega / rho D^-1 A) P, rho the largest eigenvalue of D^-1 A (power iteration)."""
    d = matrix.diagonal()
    v = np.random.default_rng(0).random(matrix.shape[0])
    rho = 1.0
    for _ in range(40):
        v = (matrix @ v) / d
        rho = np.abs(v).max()
        v /= rho
    step = sp.diags(omega / rho / d) @ matrix
    return (p - step @ p).tocsr()


def lump_ends(coarse, m):
    """The endpoint rule, which a solver can apply row by row: a coupling -g between I and
    K = I + d gives g / 2 to I's link along each axis a with d_a != 0 (the one towards K) and g / 2
    to K's link along a (towards I); the diagonal keeps each row's sum."""
    c = sp.triu(coarse, k=1).tocoo()
    rows, cols, vals = [], [], []
    for a in range(3):
        step = (1, m, m * m)[a]
        delta = (c.col // step) % m - (c.row // step) % m
        on = delta != 0
        towards = np.sign(delta[on]) * step
        half = -c.data[on] / 2.0
        rows += [c.row[on], c.col[on] - towards]
        cols += [c.row[on] + towards, c.col[on]]
        vals += [half, half]
    r, k, v = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    links = sp.coo_matrix((v, (np.minimum(r, k), np.maximum(r, k))), shape=coarse.shape).tocsr()
    links = links + links.T
    diagonal = np.asarray(coarse.sum(axis=1)).ravel() + np.asarray(links.sum(axis=1)).ravel()
    return (sp.diags(diagonal) - links).tocsr()


def lump(coarse, m, rule="box"):
    """A 7-point operator from a 27-point one on an m^3 grid (x fastest): every edge or corner
    coupling -g between points I and K is spread over the axis links of the box they span (g / 2
    on each of the two links per axis of an edge's square, g / 4 on each of the four of a
    corner's cube), which keeps the energy of linear fields; the diagonal keeps each row's sum
    (the ionic and boundary terms).  A box between two grid points lies in the grid, so no
    coupling is lost.  Smoothed aggregation's operator also couples points two apart along an
    axis (33 points in all; those couplings are about 1 % of a face's): each goes whole
    onto the first link of its path.  rule "ends": lump_ends instead."""
    if rule == "ends":
        return lump_ends(coarse, m)
    c = sp.triu(coarse, k=1).tocoo()
    coords = [c.row % m, (c.row // m) % m, c.row // (m * m)]
    ends = [c.col % m, (c.col // m) % m, c.col // (m * m)]
    delta = [ends[a] - coords[a] for a in range(3)]
    low = [np.minimum(coords[a], ends[a]) for a in range(3)]
    moved = sum((d != 0).astype(int) for d in delta)
    rows, cols, vals = [], [], []
    for axis in range(3):
        on = delta[axis] != 0
        share = -c.data[on] / 2.0 ** (moved[on] - 1)
        first, second = [a for a in range(3) if a != axis]
        for s1 in (0, 1):
            for s2 in (0, 1):
                use = ((s1 == 0) | (delta[first][on] != 0)) & ((s2 == 0) | (delta[second][on] != 0))
                corner = [None] * 3
                corner[axis] = low[axis][on]
                corner[first] = low[first][on] + s1
                corner[second] = low[second][on] + s2
                start = corner[0] + m * (corner[1] + m * corner[2])
                rows.append(start[use])
                cols.append(start[use] + (1, m, m * m)[axis])
                vals.append(share[use])
    links = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=coarse.shape).tocsr()
    links = links + links.T
    diagonal = np.asarray(coarse.sum(axis=1)).ravel() + np.asarray(links.sum(axis=1)).ravel()
    return (sp.diags(diagonal) - links).tocsr()


class TwoGrid:
    """Symmetric two-grid cycle from a zero start: sweeps, exact coarse correction, sweeps."""

    def __init__(self, matrix, colour, p, scale, sweeps, factor=True, lumped=None):
        self.a, self.p, self.scale, self.sweeps = matrix, p, scale, sweeps
        self.d = matrix.diagonal()
        self.points = [np.where(colour == k)[0] for k in (0, 1)]
        self.couple = [matrix[self.points[k]][:, self.points[1 - k]].tocsr() for k in (0, 1)]
        self.coarse = (p.T @ matrix @ p).tocsc()
        if lumped:  # the lumping rule, "box" or "ends"
            self.coarse = lump(self.coarse, int(round(p.shape[1] ** (1.0 / 3.0))), lumped).tocsc()
        self.factor = spl.splu(self.coarse) if factor else None

    def half_sweep(self, z, r, k):
        own, other = self.points[k], self.points[1 - k]
        z[own] = (r[own] - self.couple[k] @ z[other]) / self.d[own]

    def __call__(self, r):
        z = np.zeros_like(r)
        for _ in range(self.sweeps):
            self.half_sweep(z, r, 0), self.half_sweep(z, r, 1)
        e = self.factor.solve(self.p.T @ (r - self.a @ z))
        z += self.scale * (self.p @ e)
        for _ in range(self.sweeps):
            self.half_sweep(z, r, 1), self.half_sweep(z, r, 0)
        return z


def grid_colours(m, count):
    """Colour of each unknown of an m^3 grid (x fastest): 2 red-black, 8 the 2x2x2 pattern (a
    proper Gauss-Seidel colouring of a 27-point operator)."""
    i = np.arange(m)
    z, y, x = (v.ravel() for v in np.meshgrid(i, i, i, indexing="ij"))
    return (x + y + z) & 1 if count == 2 else (x & 1) + 2 * (y & 1) + 4 * (z & 1)


class CoarseLevel:
    """A coarse level of the W-cycle: its operator, grid edge and colour classes."""

    def __init__(self, matrix, m, colours):
        self.a, self.m, self.d = matrix.tocsr(), m, matrix.diagonal()
        colour = grid_colours(m, colours)
        self.sets = [np.where(colour == c)[0] for c in range(colours)]
        self.rows = [self.a[c] for c in self.sets]

    def sweep(self, e, r, order):
        for c in order:  # every point of a colour at once (Jacobi within a colour)
            own = self.sets[c]
            e[own] += (r[own] - self.rows[c] @ e) / self.d[own]


class WCycle(TwoGrid):
    """The solver's cycle shape with a transfer of choice on the first level: fine sweeps, then
    the first coarse level (operator P^T A P) solved by a W-cycle of 2x2x2 aggregation below it
    (Galerkin operators, scale 1.8, two visits per level, the sweeps' colour order reversed after
    the correction), exactly on levels of at most 64 unknowns."""

    def __init__(self, matrix, colour, p, scale, sweeps, colours, lumped, coarse_sweeps):
        TwoGrid.__init__(self, matrix, colour, p, scale, sweeps, factor=False, lumped=lumped)
        self.coarse_sweeps = coarse_sweeps
        coarse = self.coarse.tocsr()
        edge = int(round(p.shape[1] ** (1.0 / 3.0)))  # the first coarse grid's edge
        self.levels, self.transfers = [], []
        while True:
            self.levels.append(CoarseLevel(coarse, edge, colours))
            if edge ** 3 <= 64:
                self.factor = spl.splu(coarse.tocsc())
                break
            q = tensor(aggregation_1d(edge))
            self.transfers.append(q)
            coarse = (q.T @ coarse @ q).tocsr()
            edge = (edge + 1) // 2
        self.forward = list(range(colours))
        self.backward = self.forward[::-1]

    def solve_level(self, l, r):
        level = self.levels[l]
        if l == len(self.levels) - 1:
            return self.factor.solve(r)
        e = np.zeros_like(r)
        for _ in range(self.coarse_sweeps):
            level.sweep(e, r, self.forward)
        q = self.transfers[l]
        for visit in range(2):
            e += 1.8 * (q @ self.solve_level(l + 1, q.T @ (r - level.a @ e)))
            if visit == 0:
                level.sweep(e, r, self.backward), level.sweep(e, r, self.forward)
        for _ in range(self.coarse_sweeps):
            level.sweep(e, r, self.backward)
        return e

    def __call__(self, r):
        z = np.zeros_like(r)
        for _ in range(self.sweeps):
            self.half_sweep(z, r, 0), self.half_sweep(z, r, 1)
        z += self.scale * (self.p @ self.solve_level(0, self.p.T @ (r - self.a @ z)))
        for _ in range(self.sweeps):
            self.half_sweep(z, r, 1), self.half_sweep(z, r, 0)
        return z


def pcg(matrix, b, precondition, fall, cap=80):
    """Iterations until max |r| has fallen by `fall`, and the mean fall per iteration after the
    first (the solver's 'rate')."""
    x = np.zeros_like(b)
    r = b.copy()
    first = np.abs(r).max()
    history = []
    z = precondition(r)
    p = z.copy()
    rz = r @ z
    for it in range(1, cap + 1):
        q = matrix @ p
        alpha = rz / (p @ q)
        x += alpha * p
        r -= alpha * q
        history.append(np.abs(r).max() / first)
        if history[-1] < fall:
            break
        z = precondition(r)
        rz_new = r @ z
        p = z + (rz_new / rz) * p
        rz = rz_new
    rate = (history[-1] / history[0]) ** (1.0 / max(1, len(history) - 1))
    return it, rate


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="33,49", help="odd grid edges, comma separated")
    parser.add_argument("--salt", action="store_true", help="an ionic term outside the shell")
    parser.add_argument("--sweeps", type=int, default=2,
                        help="fine-level sweeps before and after")
    parser.add_argument("--coarse-sweeps", type=int, default=2,
                        help="sweeps before and after on the W-cycle's coarse levels")
    parser.add_argument("--transfers", default="agg,sa,tri",
                        help="transfers to compare, of agg, sa, tri, sa7, sau7")
    parser.add_argument("--lump", choices=("box", "ends"), default="box",
                        help="sa7's lumping: over the links of each coupling's box, or half on "
                        "each end's link per axis (a rule a solver can apply row by row)")
    parser.add_argument("--fall", type=float, default=1e-9, help="fall of max |r| to reach")
    parser.add_argument("--coarse", choices=("exact", "w"), default="exact",
                        help="the first coarse level solved exactly, or by a W-cycle of "
                        "aggregation below it (its sweeps in --colours colours)")
    parser.add_argument("--colours", type=int, choices=(2, 8), default=8,
                        help="colours of the W-cycle's coarse sweeps")
    args = parser.parse_args(argv)
    for n in (int(s) for s in args.sizes.split(",")):
        if n < 9 or n % 2 == 0:
            sys.exit("mg_two_grid: --sizes: %d is not an odd edge >= 9" % n)
        eps, charge, ionic = build_medium(n, args.salt)
        matrix, colour = build_operator(n, eps, ionic)
        b = 1000.0 * charge[1:-1, 1:-1, 1:-1].ravel()
        m = n - 2
        aggregate = tensor(aggregation_1d(m))
        wanted = args.transfers.split(",")
        cases = []  # name, P, correction scale, coarse operator lumped to 7 points
        if "agg" in wanted:
            cases.append(("agg, scale 1.8", aggregate, 1.8, None))
        if "sau7" in wanted:  # smoothed by the uniform part of the stencil only
            neighbours = matrix.copy().tocsr()
            neighbours.setdiag(0)
            neighbours.eliminate_zeros()
            neighbours.data[:] = 1.0
            omega = 2.0 / 3.0
            p = (aggregate - omega * (aggregate - (neighbours @ aggregate) / 6.0)).tocsr()
            for scale in (1.0, 1.2):
                cases.append(("sau7, omega %.2f, scale %.1f" % (omega, scale), p, scale,
                              args.lump))
        for kind, lumped in (("sa", None), ("sa7", args.lump)):
            if kind not in wanted:
                continue
            for omega in (1.0, 4.0 / 3.0):
                p = smoothed(matrix, aggregate, omega)
                for scale in (1.0, 1.2):
                    cases.append(("%s, omega %.2f/rho, scale %.1f" % (kind, omega, scale), p,
                                  scale, lumped))
        if "tri" in wanted:
            cases.append(("tri, scale 1.0", tensor(trilinear_1d(m)), 1.0, None))
        for name, p, scale, lumped in cases:
            start = time.time()
            if args.coarse == "exact":
                cycle = TwoGrid(matrix, colour, p, scale, args.sweeps, lumped=lumped)
            else:
                cycle = WCycle(matrix, colour, p, scale, args.sweeps, args.colours, lumped,
                               args.coarse_sweeps)
            its, rate = pcg(matrix, b, cycle, args.fall)
            print("%d^3 %s%d+%d sweeps, %s  %-31s coarse %7d unknowns, %4.1f per row: "
                  "%2d iterations, rate %.3f  (%.1f s)" %
                  (n, "salt, " if args.salt else "", args.sweeps, args.sweeps,
                   "exact coarse" if args.coarse == "exact" else "W-cycle", name,
                   p.shape[1], cycle.coarse.nnz / cycle.coarse.shape[0], its, rate,
                   time.time() - start), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
