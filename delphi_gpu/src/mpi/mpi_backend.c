/* Domain decomposition over MPI ranks: a backend (ops table) that wraps the rank's own CPU or
 * CUDA backend.  The grid is cut into slabs of whole z planes; each rank holds its slab plus one
 * halo plane on either side and runs DelPhi's red-black iteration on it, exchanging the halo
 * values of a colour after that colour's sweep.  Every point is updated with exactly the values
 * a single process would use, so the potential after any number of iterations is bitwise the
 * same as one rank's; only the order of the convergence sums differs.
 *
 * Every rank passes the whole medium and the whole phi (dg_set_*_medium, dg_solve_*): the slab
 * is cut out here, so device memory per rank is about 1/P of the grid; host memory is not
 * reduced.  The whole result is gathered on every rank.
 *
 * Halos: where every rank's backend can share its half grids with the other processes of its
 * node (CUDA IPC) and neighbouring ranks share a node, each rank copies its neighbours' edge
 * planes from their devices into its halo planes directly (device halos); a rank waits for its
 * neighbours' sweep of a colour through a small MPI message, which also carries their status.
 * Otherwise the edge planes go through host memory with MPI (host halos).  Both move the same
 * values, so the results are the same bits.  Newton's method runs over the ranks by the Newton
 * ops at the end of this file (dg_mpi_newton_ops), its step's halos taking the same two paths. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../newton_backend.h"
#include "../solver_internal.h"

typedef struct mpi_state {
    const dg_backend_ops *inner;
    void *inner_state;
    MPI_Comm comm;
    int rank, size;
    size_t es; /* bytes per value in the working precision */
    int nx, ny, nz;
    int z_first, z_last; /* owned global planes (interior) */
    int planes;          /* local planes: owned + 2 halo */
    int flip;            /* global colour = local colour ^ flip */
    dg_prepared local;
    void *halo_send, *halo_recv; /* host halos: a plane of one colour each way, and a status */
    size_t halo_half;            /* bytes of one direction's part of those buffers */
    int device_halos;            /* 1: halos copied from the neighbours' devices (peer_pull) */
    int peers_open;              /* slots mapped with peer_open */
    char halo_why[224];          /* the halo path and why (dg_mpi_describe) */
    long sample_first, sample_count, sample_stride; /* local colour (1 ^ flip) sample */
    char name[32];
} mpi_state;

/* ---- The slab ------------------------------------------------------------------------------ */

static void slab_bounds(int interior, int size, int rank, int *first, int *last) {
    const int base = interior / size, extra = interior % size;
    *first = 1 + rank * base + (rank < extra ? rank : extra);
    *last = *first + base + (rank < extra ? 1 : 0) - 1;
}

/* Local (colour, half-index) of a global point given by its colour and half-index; -1 if the
   point is not in the owned planes. */
static long to_local(const mpi_state *m, int colour, long h, int *local_colour) {
    const long plane = (long)m->nx * m->ny;
    const long w = 2 * h + colour;
    const long z = w / plane;
    if (z < m->z_first || z > m->z_last) return -1;
    const long wl = w - plane * (m->z_first - 1);
    *local_colour = (int)(wl & 1);
    return wl / 2;
}

static int build_local(mpi_state *m, const dg_prepared *g, dg_error *err) {
    dg_prepared *l = &m->local;
    dg_prepared_free(l);
    l->nx = g->nx, l->ny = g->ny, l->nz = m->planes;
    l->point_count = (size_t)l->nx * l->ny * l->nz;
    l->half_count[0] = (l->point_count + 1) / 2;
    l->half_count[1] = l->point_count / 2;
    l->interior_count = (size_t)(l->nx - 2) * (l->ny - 2) * (l->nz - 2);
    l->has_salt = g->has_salt;
    l->factor[0] = g->factor[0], l->factor[1] = g->factor[1];
    l->nonlinear_ready = g->nonlinear_ready;
    l->nonlinear_coefficient = g->nonlinear_coefficient;
    memcpy(l->chi, g->chi, sizeof l->chi);
    l->charges_not_interior = g->charges_not_interior;
    l->net_charge_known = g->net_charge_known, l->net_charge = g->net_charge;
    if (g->has_salt) {
        if (dg_prepared_alloc_flags(l) != DG_OK) goto out_of_memory;
        /* Planes z_first-1 .. z_last+1 of the global grid: local point wl is global point
           wl + offset.  With an even offset each local half grid is a run of the global one of
           its colour, from offset / 2; with an odd offset 2k + 1 the colours swap: local colour
           0 is global colour 1 from k, local colour 1 global colour 0 from k + 1. */
        const size_t offset = (size_t)g->nx * g->ny * (m->z_first - 1), k = offset / 2;
        for (int c = 0; c < 2; ++c) {
            const int gc = (offset & 1) ? 1 - c : c;
            const size_t from = (offset & 1) && c == 1 ? k + 1 : k;
            memcpy(l->flag[c], g->flag[gc] + from, l->half_count[c]);
        }
    }
    int nb[2] = {0, 0}, nq[2] = {0, 0}, lc;
    for (int c = 0; c < 2; ++c) {
        for (int k = 0; k < g->boundary_count[c]; ++k)
            if (to_local(m, c, g->boundary_index[c][k], &lc) >= 0) ++nb[lc];
        for (int k = 0; k < g->charge_count[c]; ++k)
            if (to_local(m, c, g->charge_index[c][k], &lc) >= 0) ++nq[lc];
    }
    if (dg_prepared_alloc_lists(l, nb, nq) != DG_OK) goto out_of_memory;
    int fb[2] = {0, 0}, fq[2] = {0, 0};
    for (int c = 0; c < 2; ++c) {
        for (int k = 0; k < g->boundary_count[c]; ++k) {
            const long h = to_local(m, c, g->boundary_index[c][k], &lc);
            if (h < 0) continue;
            l->boundary_index[lc][fb[lc]] = (int)h;
            memcpy(l->boundary_weight[lc] + 6L * fb[lc], g->boundary_weight[c] + 6L * k,
                   6 * sizeof(double));
            ++fb[lc];
        }
        for (int k = 0; k < g->charge_count[c]; ++k) {
            const long h = to_local(m, c, g->charge_index[c][k], &lc);
            if (h < 0) continue;
            l->charge_index[lc][fq[lc]] = (int)h;
            l->charge_source[lc][fq[lc]] = g->charge_source[c][k];
            ++fq[lc];
        }
    }
    /* Periodic x and y (options refuse z): the seam steps stay within each plane, so the slab's
       own seam lists make each rank's sweep the undecomposed one's. */
    l->periodic = g->periodic;
    if (dg_prepared_build_seams(l) != DG_OK) goto out_of_memory;
    return DG_OK;
out_of_memory:
    dg_prepared_free(l);
    return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "MPI rank %d: out of host memory for its slab",
                        m->rank);
}

/* The convergence sample of one process is the even (colour 1) half grid at half-indices
   1, 1 + stride, ... (global point w = 2h + 1); this rank measures those in its owned planes,
   w_first <= w < w_end.  Faces never change, so leaving out the outer planes changes nothing. */
static void plan_sample(mpi_state *m, long stride) {
    const long plane = (long)m->nx * m->ny;
    const long h_low = plane * m->z_first / 2, h_high = plane * (m->z_last + 1) / 2;
    const long j_low = h_low <= 1 ? 0 : (h_low - 1 + stride - 1) / stride;
    const long j_high = h_high <= 1 ? 0 : (h_high - 1 + stride - 1) / stride;
    const long shift = plane * (m->z_first - 1) / 2; /* global h - local h */
    m->sample_first = 1 + j_low * stride - shift;
    m->sample_count = j_high > j_low ? j_high - j_low : 0;
    m->sample_stride = stride;
}

/* The worst status of the ranks of comm (every rank calls it at the same point). */
static int worst_status(MPI_Comm comm, int status) {
    int worst = status;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm);
    return worst;
}

/* Agree on a status across ranks: the worst one wins, so no rank goes on alone. */
static int agree(mpi_state *m, int status, dg_error *err) {
    const int worst = worst_status(m->comm, status);
    if (worst != DG_OK && status == DG_OK)
        return dg_error_set(err, worst, "another MPI rank failed (status %d)", worst);
    return status;
}

/* ---- Device halos ------------------------------------------------------------------------- */

/* Unmap the neighbours' half grids, once this rank's queued copies from them have ended. */
static void close_peers(mpi_state *m) {
    if (!m->peers_open || !m->inner->peer_open) return;
    dg_error ignored;
    if (m->inner->finish) m->inner->finish(m->inner_state, &ignored);
    for (int slot = 0; slot < 2; ++slot)
        m->inner->peer_open(m->inner_state, slot, NULL, &ignored);
    m->peers_open = 0;
}

/* 1 when rank `other` of the communicator runs on this rank's node. */
static int same_node(mpi_state *m, MPI_Comm node, int other) {
    MPI_Group all, here;
    int translated = MPI_UNDEFINED;
    MPI_Comm_group(m->comm, &all);
    MPI_Comm_group(node, &here);
    MPI_Group_translate_ranks(all, 1, &other, here, &translated);
    MPI_Group_free(&all);
    MPI_Group_free(&here);
    return translated != MPI_UNDEFINED;
}

/* Every rank's sharing blob (DG_PEER_HANDLE_BYTES) and whether it made one, to and from its
   neighbours (theirs[0] from the rank below, [1] from the rank above), with the message tags
   tag to tag + 3: the blob goes down to slot 1 of the rank below and up to slot 0 of the rank
   above. */
static void swap_blobs(mpi_state *m, const unsigned char *mine, int exported,
                       unsigned char theirs[2][DG_PEER_HANDLE_BYTES], int neighbour_exported[2],
                       int tag) {
    for (int slot = 0; slot < 2; ++slot) {
        const int other = slot == 0 ? m->rank - 1 : m->rank + 1;
        neighbour_exported[slot] = 0;
        if (other < 0 || other >= m->size) continue;
        MPI_Sendrecv(mine, DG_PEER_HANDLE_BYTES, MPI_BYTE, other, tag + slot, theirs[slot],
                     DG_PEER_HANDLE_BYTES, MPI_BYTE, other, tag + 1 - slot, m->comm,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&exported, 1, MPI_INT, other, tag + 2 + slot, &neighbour_exported[slot], 1,
                     MPI_INT, other, tag + 3 - slot, m->comm, MPI_STATUS_IGNORE);
    }
}

/* After the backends took their slabs (collective): map the neighbours' half grids where every
   rank can, and say which halo path the ranks take (m->device_halos, m->halo_why). */
static void plan_halos(mpi_state *m) {
    const dg_backend_ops *in = m->inner;
    m->device_halos = 0;
    if (m->size == 1) {
        snprintf(m->halo_why, sizeof m->halo_why, "no halos (one rank)");
        return;
    }
    int can = in->peer_export && in->peer_open && in->peer_pull && in->finish;
    char why[160] = "";
    int all_can = 0;
    MPI_Allreduce(&can, &all_can, 1, MPI_INT, MPI_MIN, m->comm);
    if (!all_can) {
        snprintf(m->halo_why, sizeof m->halo_why,
                 "halos through host memory (the %s backend shares no device memory)", in->name);
        return;
    }
    MPI_Comm node;
    MPI_Comm_split_type(m->comm, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &node);
    const int neighbour[2] = {m->rank - 1, m->rank + 1};
    int ok = 1;
    for (int slot = 0; slot < 2; ++slot)
        if (neighbour[slot] >= 0 && neighbour[slot] < m->size &&
            !same_node(m, node, neighbour[slot]))
            ok = 0, snprintf(why, sizeof why, "MPI ranks %d and %d are on different nodes", m->rank,
                             neighbour[slot]);
    MPI_Comm_free(&node);
    /* every rank exports (an empty blob when it cannot) and maps its neighbours' */
    unsigned char mine[DG_PEER_HANDLE_BYTES], theirs[2][DG_PEER_HANDLE_BYTES];
    memset(mine, 0, sizeof mine);
    dg_error err;
    if (ok && in->peer_export(m->inner_state, mine, &err) != DG_OK)
        ok = 0, snprintf(why, sizeof why, "%.120s", err.message);
    int neighbour_exported[2];
    swap_blobs(m, mine, ok, theirs, neighbour_exported, 10);
    for (int slot = 0; slot < 2 && ok; ++slot) {
        const int other = neighbour[slot];
        if (other < 0 || other >= m->size || !neighbour_exported[slot]) continue;
        if (in->peer_open(m->inner_state, slot, theirs[slot], &err) != DG_OK)
            ok = 0, snprintf(why, sizeof why, "%.120s", err.message);
        else
            m->peers_open = 1;
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, m->comm);
    m->device_halos = all_ok;
    if (all_ok) {
        snprintf(m->halo_why, sizeof m->halo_why, "halos from device to device (CUDA IPC)");
        return;
    }
    close_peers(m);
    if (ok) snprintf(why, sizeof why, "another rank could not share device memory");
    snprintf(m->halo_why, sizeof m->halo_why, "halos through host memory (%s)", why);
}

/* ---- Ops ------------------------------------------------------------------------------------ */

static void mpi_destroy(void *state) {
    mpi_state *m = state;
    if (!m) return;
    if (m->inner_state) close_peers(m), m->inner->destroy(m->inner_state);
    dg_prepared_free(&m->local);
    free(m->halo_send), free(m->halo_recv);
    if (m->comm != MPI_COMM_NULL) MPI_Comm_free(&m->comm);
    free(m);
}

static int mpi_create(void **state, const dg_backend_config *config, dg_error *err) {
    (void)state, (void)config;
    return dg_error_set(err, DG_ERR_INTERNAL, "the MPI backend is created by dg_mpi_wrap");
}

static int mpi_set_medium(void *state, const dg_prepared *prep, dg_error *err) {
    mpi_state *m = state;
    int dims[3] = {prep->nx, prep->ny, prep->nz}, low[3], high[3];
    MPI_Allreduce(dims, low, 3, MPI_INT, MPI_MIN, m->comm);
    MPI_Allreduce(dims, high, 3, MPI_INT, MPI_MAX, m->comm);
    if (memcmp(low, high, sizeof low) != 0)
        return dg_error_set(err, DG_ERR_INVALID_GRID,
                            "MPI ranks set media of different grids (%d..%d x %d..%d x %d..%d)",
                            low[0], high[0], low[1], high[1], low[2], high[2]);
    if (prep->nz - 2 < m->size)
        return dg_error_set(err, DG_ERR_UNSUPPORTED,
                            "a grid with %d interior z planes cannot be split over %d MPI ranks "
                            "(at most one rank per plane)",
                            prep->nz - 2, m->size);
    m->nx = prep->nx, m->ny = prep->ny, m->nz = prep->nz;
    slab_bounds(prep->nz - 2, m->size, m->rank, &m->z_first, &m->z_last);
    m->planes = m->z_last - m->z_first + 3;
    m->flip = (m->z_first - 1) & 1;
    m->sample_stride = 0;
    /* the neighbours' half grids are about to be freed: unmap them first, on every rank (the
       agreement below is the barrier after which a backend frees its own) */
    close_peers(m);
    m->device_halos = 0;
    free(m->halo_send), free(m->halo_recv);
    /* a plane of one colour and the sender's status, per direction */
    m->halo_half = ((size_t)m->nx * m->ny / 2 + 2) * m->es + sizeof(int);
    m->halo_send = malloc(2 * m->halo_half);
    m->halo_recv = malloc(2 * m->halo_half);
    int st = m->halo_send && m->halo_recv
                 ? DG_OK
                 : dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of memory (halo buffers)");
    st = agree(m, st, err);
    if (st == DG_OK) st = build_local(m, prep, err);
    if (st == DG_OK) st = m->inner->set_medium(m->inner_state, &m->local, err);
    st = agree(m, st, err);
    if (st == DG_OK) plan_halos(m);
    return st;
}

/* The slab of the whole grid, planes z_first-1 .. z_last+1: contiguous in x-fastest order. */
static size_t slab_offset(const mpi_state *m) {
    return (size_t)m->nx * m->ny * (m->z_first - 1);
}

/* The slab of phi into the rank's backend: whole, or (faces_only, when the caller found every
   interior point of phi +0.0, so the slab's interior too) only the slab's six faces, of which
   the two z faces are the halo planes or phi's own z faces. */
static int load_slab(mpi_state *m, const void *phi, int is_double, int faces_only, dg_error *err) {
    const size_t bytes = is_double ? sizeof(double) : sizeof(float);
    const char *slab = (const char *)phi + slab_offset(m) * bytes;
    int (*load)(void *, const void *, int, dg_error *) =
        faces_only && m->inner->load_phi_faces ? m->inner->load_phi_faces : m->inner->load_phi;
    int st = load(m->inner_state, slab, is_double, err);
    /* iterate_colour sweeps with the block shape chosen so far: choose it on this rank's slab
       first (the choice never changes the results), then start again from phi */
    int ran = 0;
    if (st == DG_OK && m->inner->tune) st = m->inner->tune(m->inner_state, &ran, err);
    if (st == DG_OK && ran) st = load(m->inner_state, slab, is_double, err);
    return agree(m, st, err);
}

static int mpi_load_phi(void *state, const void *phi, int is_double, dg_error *err) {
    return load_slab(state, phi, is_double, 0, err);
}

static int mpi_load_phi_faces(void *state, const void *phi, int is_double, dg_error *err) {
    return load_slab(state, phi, is_double, 1, err);
}

static int mpi_store_phi(void *state, void *phi, int is_double, dg_error *err) {
    mpi_state *m = state;
    const size_t bytes = is_double ? sizeof(double) : sizeof(float);
    char *slab = (char *)phi + slab_offset(m) * bytes;
    int st = m->inner->store_phi(m->inner_state, slab, is_double, err);
    int *counts = st == DG_OK ? malloc(2 * sizeof(int) * (size_t)m->size) : NULL;
    if (st == DG_OK && !counts)
        st = dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of memory (MPI gather counts)");
    st = agree(m, st, err); /* every rank gathers, or none */
    if (st != DG_OK) {
        free(counts);
        return st;
    }
    /* Gather the owned planes of every rank into every rank's grid. */
    MPI_Datatype plane;
    MPI_Type_contiguous((int)((size_t)m->nx * m->ny * bytes), MPI_BYTE, &plane);
    MPI_Type_commit(&plane);
    for (int r = 0; r < m->size; ++r) {
        int first, last;
        slab_bounds(m->nz - 2, m->size, r, &first, &last);
        counts[r] = last - first + 1, counts[m->size + r] = first;
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, phi, counts, counts + m->size, plane,
                   m->comm);
    free(counts);
    MPI_Type_free(&plane);
    return DG_OK;
}

static int mpi_set_omega(void *state, double omega, dg_error *err) {
    mpi_state *m = state;
    return agree(m, m->inner->set_omega(m->inner_state, omega, err), err);
}

static int plane_count(const mpi_state *m, int z, int colour) {
    long first, end;
    dg_plane_range(m->nx, m->ny, z, colour, &first, &end);
    return (int)(end - first);
}

/* The local plane count and colour flip of rank r's slab. */
static void slab_of(const mpi_state *m, int r, int *planes, int *flip) {
    int first, last;
    slab_bounds(m->nz - 2, m->size, r, &first, &last);
    *planes = last - first + 3, *flip = (first - 1) & 1;
}

/* The worst of this rank's status and its neighbours' (received with the halo); a neighbour's
   failure becomes this rank's, named. */
static int worse(int status, int received, int from, dg_error *err) {
    if (received == DG_OK || status != DG_OK) return status;
    if (received < 0 || received > DG_ERR_INTERNAL) received = DG_ERR_INTERNAL;
    return dg_error_set(err, received, "MPI rank %d failed (status %d)", from, received);
}

/* Reads (put = 0) or writes (put = 1) the values of one colour in local plane z. */
typedef int (*plane_io)(void *context, int z, int colour, void *values, int put, dg_error *err);

static int phi_plane_io(void *context, int z, int colour, void *values, int put, dg_error *err) {
    mpi_state *m = context;
    return m->inner->plane_values(m->inner_state, z, colour, values, put, err);
}

/* Host halos, after the sweep of global colour g (status st): send the edge planes' values of
   g (es bytes each, through io) and st to the neighbours and receive theirs into the halo
   planes, with the message tags tag + 2 g and tag + 2 g + 1.  Every rank sends and receives
   whatever its status, so a failure reaches the neighbours instead of leaving them waiting;
   after one, no values are copied. */
static int exchange_planes(mpi_state *m, int g, int st, size_t es, plane_io io, void *context,
                           int tag, dg_error *err) {
    const int lc = g ^ m->flip, top = m->planes - 1;
    const int bytes_low = plane_count(m, 1, lc) * (int)es;
    const int bytes_high = plane_count(m, top - 1, lc) * (int)es;
    const int recv_low = plane_count(m, 0, lc) * (int)es;
    const int recv_high = plane_count(m, top, lc) * (int)es;
    char *send = m->halo_send, *recv = m->halo_recv;
    const size_t half = m->halo_half;
    if (st == DG_OK && m->rank > 0) st = io(context, 1, lc, send, 0, err);
    if (st == DG_OK && m->rank < m->size - 1) st = io(context, top - 1, lc, send + half, 0, err);
    memcpy(send + bytes_low, &st, sizeof st);
    memcpy(send + half + bytes_high, &st, sizeof st);
    MPI_Request req[4];
    int n = 0;
    const int up = tag + 2 * g + 1, down = tag + 2 * g;
    if (m->rank > 0) {
        MPI_Irecv(recv, recv_low + (int)sizeof(int), MPI_BYTE, m->rank - 1, up, m->comm, &req[n++]);
        MPI_Isend(send, bytes_low + (int)sizeof(int), MPI_BYTE, m->rank - 1, down, m->comm,
                  &req[n++]);
    }
    if (m->rank < m->size - 1) {
        MPI_Irecv(recv + half, recv_high + (int)sizeof(int), MPI_BYTE, m->rank + 1, down, m->comm,
                  &req[n++]);
        MPI_Isend(send + half, bytes_high + (int)sizeof(int), MPI_BYTE, m->rank + 1, up, m->comm,
                  &req[n++]);
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    int got;
    if (m->rank > 0)
        memcpy(&got, recv + recv_low, sizeof got), st = worse(st, got, m->rank - 1, err);
    if (m->rank < m->size - 1)
        memcpy(&got, recv + half + recv_high, sizeof got), st = worse(st, got, m->rank + 1, err);
    if (st == DG_OK && m->rank > 0) st = io(context, 0, lc, recv, 1, err);
    if (st == DG_OK && m->rank < m->size - 1) st = io(context, top, lc, recv + half, 1, err);
    return st;
}

/* Host halos of phi (the working precision), tags 0 to 3. */
static int exchange_host(mpi_state *m, int g, int st, dg_error *err) {
    return exchange_planes(m, g, st, m->es, phi_plane_io, m, 0, err);
}

/* Queues, behind the queued work, a copy of count values of the mapped neighbour's (slot)
   colour peer_colour from half-index peer_first into this rank's colour at first. */
typedef int (*plane_pull)(void *context, int slot, int peer_colour, long peer_first, int colour,
                          long first, long count, dg_error *err);

static int phi_plane_pull(void *context, int slot, int peer_colour, long peer_first, int colour,
                          long first, long count, dg_error *err) {
    mpi_state *m = context;
    return m->inner->peer_pull(m->inner_state, slot, peer_colour, peer_first, colour, first, count,
                               err);
}

/* Device halos, after the sweep of global colour g was queued (status st): wait for it, tell
   the neighbours (with the status; message tags tag + 2 g and tag + 2 g + 1), wait for theirs,
   then queue the copies of their edge planes of g from their devices into this rank's halo
   planes (through pull), ahead of the next sweep.  A neighbour overwrites those values only in
   its next sweep of g, which follows its exchange of the other colour, which waits for this
   rank's message sent after this rank's copies finished. */
static int exchange_pulled(mpi_state *m, int g, int st, plane_pull pull, void *context, int tag,
                           dg_error *err) {
    const int lc = g ^ m->flip, top = m->planes - 1;
    if (st == DG_OK) st = m->inner->finish(m->inner_state, err);
    int got[2] = {DG_OK, DG_OK};
    MPI_Request req[4];
    int n = 0;
    const int up = tag + 2 * g + 1, down = tag + 2 * g;
    if (m->rank > 0) {
        MPI_Irecv(&got[0], 1, MPI_INT, m->rank - 1, up, m->comm, &req[n++]);
        MPI_Isend(&st, 1, MPI_INT, m->rank - 1, down, m->comm, &req[n++]);
    }
    if (m->rank < m->size - 1) {
        MPI_Irecv(&got[1], 1, MPI_INT, m->rank + 1, down, m->comm, &req[n++]);
        MPI_Isend(&st, 1, MPI_INT, m->rank + 1, up, m->comm, &req[n++]);
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    if (m->rank > 0) st = worse(st, got[0], m->rank - 1, err);
    if (m->rank < m->size - 1) st = worse(st, got[1], m->rank + 1, err);
    for (int slot = 0; slot < 2 && st == DG_OK; ++slot) {
        const int other = slot == 0 ? m->rank - 1 : m->rank + 1;
        if (other < 0 || other >= m->size) continue;
        int planes, flip;
        slab_of(m, other, &planes, &flip);
        /* the rank below's last owned plane is this rank's plane 0; the rank above's first is
           this rank's top plane */
        long peer_first, peer_end, first, end;
        dg_plane_range(m->nx, m->ny, slot == 0 ? planes - 2 : 1, g ^ flip, &peer_first, &peer_end);
        dg_plane_range(m->nx, m->ny, slot == 0 ? 0 : top, lc, &first, &end);
        if (peer_end - peer_first != end - first)
            return dg_error_set(err, DG_ERR_INTERNAL,
                                "MPI halo: %ld values from rank %d for a plane of %ld",
                                peer_end - peer_first, other, end - first);
        st = pull(context, slot, g ^ flip, peer_first, lc, first, end - first, err);
    }
    return st;
}

/* Device halos of phi, tags 0 to 3. */
static int exchange_device(mpi_state *m, int g, int st, dg_error *err) {
    return exchange_pulled(m, g, st, phi_plane_pull, m, 0, err);
}

static int mpi_iterate(void *state, int count, int measure, int stride, dg_change *change,
                       dg_error *err) {
    mpi_state *m = state;
    if (measure && m->sample_stride != stride) plan_sample(m, stride);
    const int sample_colour = 1 ^ m->flip;
    int st = DG_OK;
    /* every rank makes every exchange, so that a failure travels instead of leaving a
       neighbour waiting; after one, no rank computes */
    for (int it = 0; it < count; ++it) {
        if (st == DG_OK && measure && it == count - 1)
            st = m->inner->sample_change(m->inner_state, sample_colour, m->sample_first,
                                         m->sample_stride, m->sample_count, 1, NULL, err);
        for (int g = 0; g < 2; ++g) {
            if (st == DG_OK) st = m->inner->iterate_colour(m->inner_state, g ^ m->flip, err);
            st = m->device_halos ? exchange_device(m, g, st, err) : exchange_host(m, g, st, err);
        }
    }
    dg_change local;
    memset(&local, 0, sizeof local);
    local.finite = 1;
    if (st == DG_OK && measure)
        st = m->inner->sample_change(m->inner_state, sample_colour, m->sample_first,
                                     m->sample_stride, m->sample_count, 0, &local, err);
    st = agree(m, st, err);
    if (st != DG_OK || !measure) return st;
    MPI_Allreduce(&local.max_abs, &change->max_abs, 1, MPI_DOUBLE, MPI_MAX, m->comm);
    MPI_Allreduce(&local.sum_sq, &change->sum_sq, 1, MPI_DOUBLE, MPI_SUM, m->comm);
    MPI_Allreduce(&local.finite, &change->finite, 1, MPI_INT, MPI_MIN, m->comm);
    MPI_Allreduce(&local.max_value, &change->max_value, 1, MPI_DOUBLE, MPI_MAX, m->comm);
    return DG_OK;
}

static int mpi_update_nonlinear_source(void *state, double fraction, dg_error *err) {
    mpi_state *m = state; /* point by point: the slab's own points suffice */
    return agree(m, m->inner->update_nonlinear_source(m->inner_state, fraction, err), err);
}

static int mpi_face_potentials(void *state, const dg_face_request *request, double *out,
                               dg_error *err) {
    mpi_state *m = state; /* not decomposed: every rank computes all faces */
    return m->inner->face_potentials(m->inner_state, request, out, err);
}

/* The stage operations need no medium: the rank's own backend computes them whole. */
static int mpi_pair_potentials(void *state, const dg_pair_request *request, double *out,
                               long *skipped, dg_error *err) {
    mpi_state *m = state;
    return m->inner->pair_potentials(m->inner_state, request, out, skipped, err);
}

static int mpi_pair_fields(void *state, const dg_pair_request *request, double *out, long *skipped,
                           dg_error *err) {
    mpi_state *m = state;
    if (m->inner->pair_fields)
        return m->inner->pair_fields(m->inner_state, request, out, skipped, err);
    dg_pair_fields_host(request, out, skipped, 0);
    return DG_OK;
}

static int mpi_medium_maps(void *state, const dg_surface_request *request, unsigned char *face[3],
                           unsigned char *ion, dg_medium_counts *counts, dg_error *err) {
    mpi_state *m = state;
    return m->inner->medium_maps(m->inner_state, request, face, ion, counts, err);
}

static int mpi_surface_sites(void *state, const dg_surface_request *request, const double *points,
                             long count, double reach, double *sites, int *owners,
                             long *unprojected, dg_error *err) {
    mpi_state *m = state;
    return m->inner->surface_sites(m->inner_state, request, points, count, reach, sites, owners,
                                   unprojected, err);
}

static int not_nested(dg_error *err) {
    return dg_error_set(err, DG_ERR_UNSUPPORTED, "the MPI backend does not nest");
}

static int mpi_iterate_colour(void *state, int colour, dg_error *err) {
    (void)state, (void)colour;
    return not_nested(err);
}

static int mpi_plane_values(void *state, int z, int colour, void *buf, int to_backend,
                            dg_error *err) {
    (void)state, (void)z, (void)colour, (void)buf, (void)to_backend;
    return not_nested(err);
}

static int mpi_sample_change(void *state, int colour, long first, long stride, long count,
                             int snapshot, dg_change *change, dg_error *err) {
    (void)state, (void)colour, (void)first, (void)stride, (void)count, (void)snapshot;
    (void)change;
    return not_nested(err);
}

/* ---- Newton's method over the ranks ------------------------------------------------------ */

/* Each rank runs its backend's Newton ops on its slab.  The inner sweeps exchange the step's
   values of a colour in the edge planes after that colour (as mpi_iterate does phi's), so every
   point of the step is updated from the values one process would use; an update of phi
   exchanges phi's edge planes, so the next residual sees the neighbours' values; the norms are
   reduced over the ranks (max with MPI_MAX, sums with MPI_SUM, so they can differ from one
   process's in the last bits).  Every decision of the Newton loop is taken from reduced values,
   so the ranks take the same steps.  Where phi's halos go from device to device, the step's do
   too (each rank maps its neighbours' steps); otherwise through host memory. */
typedef struct mpi_newton {
    mpi_state *m;
    const dg_newton_ops *in; /* the rank's backend's Newton ops */
    void *ws;
    int exchanges;    /* exchanges made in the current inner call */
    int device_halos; /* 1: the step's halos copied from the neighbours' devices */
} mpi_newton;

#define NEWTON_STEP_TAG 8 /* the step's halo messages: tags 8 to 11 (phi's are 0 to 3) */

static int delta_plane_io(void *context, int z, int colour, void *values, int put, dg_error *err) {
    mpi_newton *n = context;
    return n->in->delta_plane(n->ws, z, colour, values, put, err);
}

static int delta_plane_pull(void *context, int slot, int peer_colour, long peer_first, int colour,
                            long first, long count, dg_error *err) {
    mpi_newton *n = context;
    return n->in->delta_pull(n->ws, slot, peer_colour, peer_first, colour, first, count, err);
}

/* The step's halos after the sweep of global colour g (status st). */
static int exchange_step(mpi_newton *n, int g, int st, dg_error *err) {
    if (n->device_halos)
        return exchange_pulled(n->m, g, st, delta_plane_pull, n, NEWTON_STEP_TAG, err);
    return exchange_planes(n->m, g, st, sizeof(float), delta_plane_io, n, NEWTON_STEP_TAG, err);
}

static int newton_after_colour(void *user, int colour, dg_error *err) {
    mpi_newton *n = user;
    n->exchanges++;
    return exchange_step(n, colour ^ n->m->flip, DG_OK, err);
}

/* After the workspaces exist (collective): where phi's halos go from device to device and every
   rank's backend can share its step, map the neighbours' steps. */
static void plan_step_halos(mpi_newton *n) {
    mpi_state *m = n->m;
    n->device_halos = 0;
    int can = m->size > 1 && m->device_halos && n->in->delta_export && n->in->delta_open &&
              n->in->delta_pull;
    int all_can = 0;
    MPI_Allreduce(&can, &all_can, 1, MPI_INT, MPI_MIN, m->comm);
    if (!all_can) return;
    unsigned char mine[DG_PEER_HANDLE_BYTES], theirs[2][DG_PEER_HANDLE_BYTES];
    memset(mine, 0, sizeof mine);
    dg_error ignored;
    int ok = n->in->delta_export(n->ws, mine, &ignored) == DG_OK;
    int neighbour_exported[2];
    swap_blobs(m, mine, ok, theirs, neighbour_exported, 14);
    const int neighbour[2] = {m->rank - 1, m->rank + 1};
    for (int slot = 0; slot < 2 && ok; ++slot) {
        const int other = neighbour[slot];
        if (other < 0 || other >= m->size) continue;
        ok = neighbour_exported[slot] &&
             n->in->delta_open(n->ws, slot, theirs[slot], &ignored) == DG_OK;
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, m->comm);
    n->device_halos = all_ok;
    if (!all_ok)
        for (int slot = 0; slot < 2; ++slot)
            n->in->delta_open(n->ws, slot, NULL, &ignored);
}

/* The norms of every rank's slab; not finite on any rank: max_abs NaN. */
static void reduce_norms(mpi_state *m, const dg_newton_norms *local, dg_newton_norms *out) {
    double max_abs = local->finite ? local->max_abs : 0.0;
    MPI_Allreduce(&max_abs, &out->max_abs, 1, MPI_DOUBLE, MPI_MAX, m->comm);
    MPI_Allreduce(&local->sum_sq, &out->sum_sq, 1, MPI_DOUBLE, MPI_SUM, m->comm);
    MPI_Allreduce(&local->finite, &out->finite, 1, MPI_INT, MPI_MIN, m->comm);
    if (!out->finite) out->max_abs = NAN;
}

static void mpi_newton_end(void *workspace) {
    mpi_newton *n = workspace;
    if (!n) return;
    if (n->device_halos) {
        /* the copies from the neighbours end, their mappings close, and only when every rank
           has closed its own does any rank free its step */
        dg_error ignored;
        n->m->inner->finish(n->m->inner_state, &ignored);
        for (int slot = 0; slot < 2; ++slot)
            n->in->delta_open(n->ws, slot, NULL, &ignored);
        MPI_Barrier(n->m->comm);
    }
    if (n->ws) n->in->end(n->ws);
    free(n);
}

static int mpi_newton_begin(void *backend_state, const dg_newton_term *term, void **workspace,
                            dg_error *err) {
    mpi_state *m = backend_state;
    *workspace = NULL;
    mpi_newton *n = calloc(1, sizeof *n);
    int st = n ? DG_OK : dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of memory (Newton, MPI)");
    if (st == DG_OK) {
        n->m = m;
        n->in = dg_newton_ops_of(m->inner);
        if (!n->in || !n->in->delta_plane)
            st = dg_error_set(err, DG_ERR_UNSUPPORTED,
                              "the %s backend cannot run Newton's method over MPI ranks",
                              m->inner->name);
    }
    if (st == DG_OK) st = n->in->begin(m->inner_state, term, &n->ws, err);
    st = agree(m, st, err);
    if (st != DG_OK) {
        mpi_newton_end(n);
        return st;
    }
    plan_step_halos(n);
    *workspace = n;
    return DG_OK;
}

static int mpi_newton_residual(void *workspace, dg_newton_norms *norms, dg_error *err) {
    mpi_newton *n = workspace;
    dg_newton_norms local = {0.0, 0.0, 1};
    const int st = agree(n->m, n->in->residual(n->ws, &local, err), err);
    if (st == DG_OK) reduce_norms(n->m, &local, norms);
    return st;
}

static int mpi_newton_zero_step(void *workspace, dg_error *err) {
    mpi_newton *n = workspace;
    return agree(n->m, n->in->zero_step(n->ws, err), err);
}

static int mpi_newton_inner(void *workspace, int count, double omega, int measure,
                            double *max_change, const dg_newton_exchange *exchange, dg_error *err) {
    mpi_newton *n = workspace;
    mpi_state *m = n->m;
    if (exchange) return not_nested(err);
    const dg_newton_exchange halos = {m->flip, newton_after_colour, n};
    double local = 0.0;
    n->exchanges = 0;
    int st = n->in->inner(n->ws, count, omega, measure, &local, &halos, err);
    /* after a failure (here or a neighbour's) the rank still makes the block's remaining
       exchanges, carrying the status, so that no neighbour is left waiting */
    for (; n->exchanges < 2 * count; n->exchanges++)
        st = exchange_step(n, n->exchanges & 1, st, err); /* global colour 0, then 1 */
    /* the copies from the neighbours end before any rank goes on (and may change its step) */
    if (st == DG_OK && n->device_halos) st = m->inner->finish(m->inner_state, err);
    st = agree(m, st, err);
    if (st != DG_OK || !measure) return st;
    int finite = isfinite(local), all_finite = 0;
    if (!finite) local = 0.0;
    MPI_Allreduce(&local, max_change, 1, MPI_DOUBLE, MPI_MAX, m->comm);
    MPI_Allreduce(&finite, &all_finite, 1, MPI_INT, MPI_MIN, m->comm);
    if (!all_finite) *max_change = NAN;
    return DG_OK;
}

static int mpi_newton_step(void *workspace, double lambda, int first, dg_newton_norms *norms,
                           dg_error *err) {
    mpi_newton *n = workspace;
    mpi_state *m = n->m;
    dg_newton_norms local = {0.0, 0.0, 1};
    int st = n->in->step(n->ws, lambda, first, &local, err);
    for (int g = 0; g < 2; ++g) /* phi's edge planes, for the next residual */
        st = m->device_halos ? exchange_device(m, g, st, err) : exchange_host(m, g, st, err);
    if (st == DG_OK && m->device_halos) st = m->inner->finish(m->inner_state, err);
    st = agree(m, st, err);
    if (st == DG_OK) reduce_norms(m, &local, norms);
    return st;
}

const dg_newton_ops dg_mpi_newton_ops = {
    mpi_newton_begin,
    mpi_newton_end,
    mpi_newton_residual,
    mpi_newton_zero_step,
    mpi_newton_inner,
    mpi_newton_step,
    NULL, /* mg_begin: multigrid runs on one process */
    NULL, /* inner_mg */
    NULL, /* delta_plane: the MPI backend does not nest */
    NULL, /* delta_export */
    NULL, /* delta_open */
    NULL, /* delta_pull */
};

static const dg_backend_ops mpi_ops_template = {
    "mpi",
    mpi_create,
    mpi_destroy,
    mpi_set_medium,
    mpi_load_phi,
    mpi_store_phi,
    mpi_set_omega,
    mpi_iterate,
    mpi_update_nonlinear_source,
    mpi_face_potentials,
    mpi_iterate_colour,
    mpi_plane_values,
    mpi_sample_change,
    mpi_pair_potentials,
    mpi_medium_maps,
    mpi_surface_sites,
    mpi_load_phi_faces,
    NULL, /* store_wait_seconds */
    NULL, /* spectral_radius: the core computes it (rank 0's value) */
    NULL, /* peer_export: the MPI backend does not nest */
    NULL, /* peer_open */
    NULL, /* peer_pull */
    NULL, /* finish */
    NULL, /* tune: mpi_load_phi has each rank's backend tune */
    NULL, /* arc_dots: the surface model finds them on the host threads */
    mpi_pair_fields,
};

int dg_mpi_wrap(dg_solver s, dg_error *err) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
        return dg_error_set(err, DG_ERR_STATE,
                            "options.mpi_comm is set but MPI is not initialized (MPI_Init first)");
    if (!s->backend->iterate_colour || !s->backend->plane_values || !s->backend->sample_change)
        return dg_error_set(err, DG_ERR_UNSUPPORTED, "the %s backend cannot be decomposed",
                            s->backend->name);
    mpi_state *m = calloc(1, sizeof *m);
    if (!m) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of memory (MPI state)");
    m->comm = MPI_COMM_NULL;
    if (MPI_Comm_dup(*(const MPI_Comm *)s->options.mpi_comm, &m->comm) != MPI_SUCCESS) {
        free(m);
        return dg_error_set(err, DG_ERR_INVALID_ARGUMENT,
                            "options.mpi_comm: MPI_Comm_dup failed (not a communicator?)");
    }
    MPI_Comm_rank(m->comm, &m->rank);
    MPI_Comm_size(m->comm, &m->size);
    m->inner = s->backend, m->inner_state = s->backend_state;
    m->es = s->options.precision == DG_PRECISION_DOUBLE ? sizeof(double) : sizeof(float);
    snprintf(m->name, sizeof m->name, "%s+mpi", m->inner->name);
    s->mpi_ops = mpi_ops_template;
    s->mpi_ops.name = m->name;
    s->backend = &s->mpi_ops, s->backend_state = m;
    return DG_OK;
}

int dg_mpi_rank(dg_solver s) {
    if (!s || !s->backend || s->backend != &s->mpi_ops) return 0;
    return ((const mpi_state *)s->backend_state)->rank;
}

int dg_mpi_agree_double(dg_solver s, double *value) {
    if (s->backend != &s->mpi_ops) return DG_OK;
    mpi_state *m = s->backend_state;
    MPI_Bcast(value, 1, MPI_DOUBLE, 0, m->comm);
    return DG_OK;
}

void dg_mpi_describe(dg_solver s, char *out, size_t size) {
    if (!size) return;
    out[0] = '\0';
    if (s->backend != &s->mpi_ops) return;
    const mpi_state *m = s->backend_state;
    snprintf(out, size, "%d MPI rank%s, %s", m->size, m->size > 1 ? "s" : "", m->halo_why);
}

int dg_mpi_agree_status(dg_solver s, int status, const char *what) {
    if (!s || !s->backend || s->backend != &s->mpi_ops) return status;
    const mpi_state *m = s->backend_state;
    const int worst = worst_status(m->comm, status);
    if (worst != DG_OK && status == DG_OK)
        return dg_fail(s, worst, "another MPI rank failed to %s (status %d)", what, worst);
    return status;
}

void dg_mpi_entry_begin(dg_solver s) {
    /* a call from inside a solve (its progress callback) is refused without a collective step */
    if (s && !s->in_solve) s->mpi_entry_pending = 1;
}

int dg_mpi_entry_agree(dg_solver s, int status, const char *what) {
    if (!s || !s->mpi_entry_pending) return status;
    s->mpi_entry_pending = 0;
    return dg_mpi_agree_status(s, status, what);
}

/* What every rank of a split solve must share beyond the grid (which dg_set_*_medium checks):
   the options that steer the iterations and the medium's scalars.  A parameter file that
   differs between nodes gave the ranks different iteration counts (a hang in the halo
   exchanges) or a silently mixed medium (another salt factor on one rank). */
int dg_mpi_same_setup(dg_solver s) {
    if (!s || !s->backend || s->backend != &s->mpi_ops) return DG_OK;
    const mpi_state *m = s->backend_state;
    const dg_options *o = &s->options;
    const dg_prepared *p = &s->prep;
    const struct {
        const char *name;
        double value;
    } fields[] = {
        {"precision", o->precision},
        {"equation", o->equation},
        {"solver", o->solver},
        {"omega", o->omega},
        {"spectral_radius", o->spectral_radius},
        {"iterations", o->iterations},
        {"run_until_converged", o->run_until_converged},
        {"max_iterations", o->max_iterations},
        {"check_interval", o->check_interval},
        {"check_stride", o->check_stride},
        {"rms_change_tol", o->rms_change_tol},
        {"max_change_tol", o->max_change_tol},
        {"norm_change_tol", o->norm_change_tol},
        {"nonlinear_blocks", o->nonlinear_blocks},
        {"relpar", o->relpar},
        {"qfact", o->qfact},
        {"divergence_checks", o->divergence_checks},
        {"divergence_factor", o->divergence_factor},
        {"nonlinear_method", o->nonlinear_method},
        {"nonlinear_term", o->nonlinear_term},
        {"periodic", o->periodic},
        {"the medium's salt (has_salt)", p->has_salt},
        {"the medium's uniform factor", p->factor[0]},
        {"the medium's salt factor", p->factor[1]},
        {"the medium's boundary points", (double)p->boundary_count[0] + p->boundary_count[1]},
        {"the medium's charged points", (double)p->charge_count[0] + p->charge_count[1]}};
    enum { N = sizeof fields / sizeof fields[0] };
    double value[N], low[N], high[N];
    for (int i = 0; i < N; ++i)
        value[i] = fields[i].value;
    MPI_Allreduce(value, low, N, MPI_DOUBLE, MPI_MIN, m->comm);
    MPI_Allreduce(value, high, N, MPI_DOUBLE, MPI_MAX, m->comm);
    for (int i = 0; i < N; ++i)
        if (low[i] != high[i])
            return dg_fail(s, DG_ERR_INVALID_ARGUMENT,
                           "MPI ranks were given different settings: %s is %g on one rank and "
                           "%g on another (every rank needs the same options and medium)",
                           fields[i].name, low[i], high[i]);
    return DG_OK;
}

int dg_mpi_any(dg_solver s, int flag) {
    if (!s || !s->backend || s->backend != &s->mpi_ops) return flag;
    const mpi_state *m = s->backend_state;
    int any = flag != 0;
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, m->comm);
    return any;
}

int dg_mpi_agree_create(dg_solver s, int status) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) return status;
    const int worst = worst_status(*(const MPI_Comm *)s->options.mpi_comm, status);
    if (worst != DG_OK && status == DG_OK)
        return dg_fail(s, worst, "another MPI rank failed to create its solver (status %d)", worst);
    return status;
}
