/* Upload of a prepared medium: free-memory check, half grids, flags, merged sparse lists and
 * their texture objects.  Everything the iterations need stays on the device afterwards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.cuh"

#define MIB                   (1024.0 * 1024.0)
#define DG_CUDA_RESERVE_BYTES ((size_t)64 << 20) /* left free for the runtime and fragmentation */
#define DG_CUDA_STAGING_BYTES ((size_t)16 << 20) /* each of the two slabs of the transfers */

int dg_cuda_fail(dg_error *err, cudaError_t code, const char *what) {
    const int status =
        code == cudaErrorMemoryAllocation ? DG_ERR_DEVICE_OUT_OF_MEMORY : DG_ERR_DEVICE;
    return dg_error_set(err, status, "CUDA error in %s: %s (%s)", what, cudaGetErrorString(code),
                        cudaGetErrorName(code));
}

int dg_cuda_check_free(dg_cuda_state *st, size_t need, const char *what, dg_error *err) {
    size_t free_bytes = 0, total_bytes = 0;
    DG_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    if (need + DG_CUDA_RESERVE_BYTES > free_bytes && st->mg_workspace) {
        /* the multigrid workspace kept for a next solve gives way */
        dg_cuda_free_mg_workspace(st);
        DG_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    }
    if (need + DG_CUDA_RESERVE_BYTES > free_bytes)
        return dg_error_set(err, DG_ERR_DEVICE_OUT_OF_MEMORY,
                            "%s needs %.1f MiB of GPU memory (plus %.0f MiB reserve), but device "
                            "%d (%s) has %.1f MiB free of %.1f MiB",
                            what, need / MIB, DG_CUDA_RESERVE_BYTES / MIB, st->device,
                            st->device_name, free_bytes / MIB, total_bytes / MIB);
    return DG_OK;
}

static void destroy_texture(cudaTextureObject_t *tex) {
    if (*tex) cudaDestroyTextureObject(*tex);
    *tex = 0;
}

void dg_cuda_free_medium(dg_cuda_state *st) {
    for (int c = 0; c < 2; ++c) {
        dg_cuda_sparse *sp = &st->sparse[c];
        destroy_texture(&sp->tex_index);
        destroy_texture(&sp->tex_weight);
        destroy_texture(&sp->tex_source);
        cudaFree(sp->index), cudaFree(sp->weight_raw), cudaFree(sp->source_raw);
        cudaFree(sp->weight), cudaFree(sp->source), cudaFree(sp->last);
        memset(sp, 0, sizeof *sp);
        cudaFree(st->phi[c]), cudaFree(st->flag[c]), cudaFree(st->qmap[c]);
        st->phi[c] = NULL, st->flag[c] = NULL, st->qmap[c] = NULL;
    }
    dg_cuda_refine_free(st);
    dg_cuda_wrap_free(st);
    cudaFree(st->staging_slab[0]), cudaFree(st->staging_slab[1]), cudaFree(st->partials);
    st->staging_slab[0] = st->staging_slab[1] = st->staging = NULL, st->partials = NULL;
    st->staging_bytes = 0, st->partial_capacity = 0, st->partial_count = 0;
    st->has_medium = 0, st->nonlinear_active = 0, st->medium_bytes = 0;
}

/* ---- Merged, sorted lists on the host ---------------------------------------------------- */

struct host_list {
    int boundary_count, total_count;
    int *index;
    double *weight, *source;
};

struct keyed {
    int key, position;
};

static int compare_keyed(const void *a, const void *b) {
    const keyed *x = (const keyed *)a, *y = (const keyed *)b;
    return x->key < y->key ? -1 : x->key > y->key ? 1 : x->position - y->position;
}

/* 1 when keys ascend strictly (repeats are left to the sort, whose order the check reports). */
static int is_sorted(const keyed *list, int count) {
    for (int k = 1; k < count; ++k)
        if (list[k - 1].key >= list[k].key) return 0;
    return 1;
}

static void free_host_list(host_list *l) {
    free(l->index), free(l->weight), free(l->source);
    memset(l, 0, sizeof *l);
}

/* Boundary points sorted by half-index, each with its charge source (0 if none), then the
   charged points that are not boundary points. */
static int build_host_list(const dg_prepared *p, int c, host_list *out, dg_error *err) {
    memset(out, 0, sizeof *out);
    const int nb = p->boundary_count[c], nq = p->charge_count[c];
    const long long limit = (long long)p->half_count[c];
    keyed *b = (keyed *)malloc(((size_t)nb + 1) * sizeof(keyed));
    keyed *q = (keyed *)malloc(((size_t)nq + 1) * sizeof(keyed));
    out->index = (int *)malloc(((size_t)nb + nq + 1) * sizeof(int));
    out->weight = (double *)malloc((6 * (size_t)nb + 1) * sizeof(double));
    out->source = (double *)calloc((size_t)nb + nq + 1, sizeof(double));
    int status = DG_OK;
    if (!b || !q || !out->index || !out->weight || !out->source) {
        status = dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory for the lists");
        goto done;
    }
    for (int k = 0; k < nb; ++k)
        b[k].key = p->boundary_index[c][k], b[k].position = k;
    for (int k = 0; k < nq; ++k)
        q[k].key = p->charge_index[c][k], q[k].position = k;
    /* The prepared lists are usually in grid order already (the dense path builds them so):
       sorted then, as a stable sort would leave them. */
    if (!is_sorted(b, nb)) qsort(b, nb, sizeof(keyed), compare_keyed);
    if (!is_sorted(q, nq)) qsort(q, nq, sizeof(keyed), compare_keyed);
    for (int pass = 0; pass < 2; ++pass) {
        const keyed *list = pass == 0 ? b : q;
        const int count = pass == 0 ? nb : nq;
        for (int k = 0; k < count; ++k) {
            const int repeated = k > 0 && list[k - 1].key == list[k].key;
            if (list[k].key < 0 || list[k].key >= limit || repeated) {
                status = dg_error_set(err, DG_ERR_INTERNAL,
                                      "prepared %s list of colour %d has %s half-index %d",
                                      pass == 0 ? "boundary" : "charge", c,
                                      repeated ? "a repeated" : "an out-of-range", list[k].key);
                goto done;
            }
        }
    }
    {
        int j = 0, n = 0;
        for (int k = 0; k < nb; ++k, ++n) {
            out->index[n] = b[k].key;
            memcpy(out->weight + 6 * (size_t)n, p->boundary_weight[c] + 6 * (size_t)b[k].position,
                   6 * sizeof(double));
            while (j < nq && q[j].key < b[k].key)
                ++j;
            if (j < nq && q[j].key == b[k].key) out->source[n] = p->charge_source[c][q[j].position];
        }
        out->boundary_count = nb;
        /* Charge-only points: those not found among the boundary points. */
        int i = 0;
        for (int k = 0; k < nq; ++k) {
            while (i < nb && b[i].key < q[k].key)
                ++i;
            if (i < nb && b[i].key == q[k].key) continue;
            out->index[n] = q[k].key;
            out->source[n] = p->charge_source[c][q[k].position];
            ++n;
        }
        out->total_count = n;
    }
done:
    free(b), free(q);
    if (status != DG_OK) free_host_list(out);
    return status;
}

/* ---- Device allocation and upload ---------------------------------------------------------- */

static int make_texture(cudaTextureObject_t *tex, void *data, size_t count,
                        cudaChannelFormatDesc desc, size_t element_bytes, dg_error *err) {
    cudaResourceDesc resource;
    memset(&resource, 0, sizeof resource);
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = data;
    resource.res.linear.desc = desc;
    resource.res.linear.sizeInBytes = count * element_bytes;
    cudaTextureDesc texture;
    memset(&texture, 0, sizeof texture);
    texture.readMode = cudaReadModeElementType;
    DG_CUDA_TRY(cudaCreateTextureObject(tex, &resource, &texture, NULL), "cudaCreateTextureObject");
    return DG_OK;
}

/* Texture objects over the lists, when they fit a 1D linear texture. */
static int make_textures(dg_cuda_state *st, dg_cuda_sparse *sp, dg_error *err) {
    const size_t nw = 6 * (size_t)sp->boundary_count, n = (size_t)sp->total_count;
    if (n == 0 || nw > (size_t)st->max_texture_linear || n > (size_t)st->max_texture_linear)
        return DG_OK;
    const cudaChannelFormatDesc real_desc =
        st->is_float ? cudaCreateChannelDesc<float>() : cudaCreateChannelDesc<int2>();
    int status =
        make_texture(&sp->tex_index, sp->index, n, cudaCreateChannelDesc<int>(), sizeof(int), err);
    if (status == DG_OK && nw > 0)
        status = make_texture(&sp->tex_weight, sp->weight, nw, real_desc, st->es, err);
    if (status == DG_OK)
        status = make_texture(&sp->tex_source, sp->source, n, real_desc, st->es, err);
    return status;
}

static size_t list_bytes(const host_list *l, int colour, size_t es) {
    const size_t n = (size_t)l->total_count, nw = 6 * (size_t)l->boundary_count;
    return n * (sizeof(int) + sizeof(double) + es + (colour == 1 ? es : 0)) +
           nw * (sizeof(double) + es);
}

#define ALLOC(ptr, bytes, what)                                                                    \
    do {                                                                                           \
        cudaError_t code_ = cudaMalloc((void **)&(ptr), (bytes) > 0 ? (bytes) : 1);                \
        if (code_ != cudaSuccess) return dg_cuda_fail(err, code_, "cudaMalloc (" what ")");        \
    } while (0)

static int upload_list(dg_cuda_state *st, int c, const host_list *l, dg_error *err) {
    dg_cuda_sparse *sp = &st->sparse[c];
    const size_t n = (size_t)l->total_count, nw = 6 * (size_t)l->boundary_count;
    sp->boundary_count = l->boundary_count, sp->total_count = l->total_count;
    ALLOC(sp->index, n * sizeof(int), "list positions");
    ALLOC(sp->source_raw, n * sizeof(double), "list sources");
    ALLOC(sp->source, n * st->es, "scaled sources");
    ALLOC(sp->weight_raw, nw * sizeof(double), "boundary weights");
    ALLOC(sp->weight, nw * st->es, "scaled boundary weights");
    if (c == 1) ALLOC(sp->last, n * st->es, "last corrected values");
    int status = dg_cuda_upload(st, sp->index, l->index, n * sizeof(int), err);
    if (status == DG_OK)
        status = dg_cuda_upload(st, sp->source_raw, l->source, n * sizeof(double), err);
    if (status == DG_OK)
        status = dg_cuda_upload(st, sp->weight_raw, l->weight, nw * sizeof(double), err);
    return status != DG_OK ? status : make_textures(st, sp, err);
}

/* Half grids, flags, lists, staging and partials; the caller frees on failure. */
static int allocate_and_upload(dg_cuda_state *st, const dg_prepared *p, const host_list lists[2],
                               dg_error *err) {
    for (int c = 0; c < 2; ++c)
        ALLOC(st->phi[c], st->half_count[c] * dg_cuda_half_bytes(st), "half grid");
    if (p->has_salt) {
        for (int c = 0; c < 2; ++c) {
            ALLOC(st->flag[c], st->half_count[c], "salt flags");
            int status = dg_cuda_upload(st, st->flag[c], p->flag[c], st->half_count[c], err);
            if (status != DG_OK) return status;
        }
    } else {
        ALLOC(st->flag[1], st->half_count[1], "sparse marks");
        DG_CUDA_TRY(cudaMemsetAsync(st->flag[1], 0, st->half_count[1], st->stream),
                    "cudaMemsetAsync (sparse marks)");
    }
    for (int c = 0; c < 2; ++c) {
        int status = upload_list(st, c, &lists[c], err);
        if (status != DG_OK) return status;
    }
    ALLOC(st->staging_slab[0], st->staging_bytes, "transfer staging");
    ALLOC(st->staging_slab[1], st->staging_bytes, "transfer staging");
    st->staging = st->staging_slab[0];
    ALLOC(st->partials, (size_t)st->partial_capacity * sizeof(dg_cuda_partial),
          "reduction partials");
    return dg_cuda_wrap_alloc(st, p, err);
}

int dg_cuda_set_medium(dg_cuda_state *st, const dg_prepared *p, dg_error *err) {
    /* a multigrid workspace kept for a grid of another size would not be used again */
    if (p->nx != st->nx || p->ny != st->ny || p->nz != st->nz) dg_cuda_free_mg_workspace(st);
    dg_cuda_free_medium(st);
    st->nx = p->nx, st->ny = p->ny, st->nz = p->nz;
    st->half_count[0] = p->half_count[0], st->half_count[1] = p->half_count[1];
    st->interior_count = p->interior_count;
    for (int c = 0; c < 2; ++c) {
        long offsets[6];
        dg_neighbour_offsets(p->nx, p->ny, c, offsets);
        for (int f = 0; f < 6; ++f)
            st->offsets[c][f] = offsets[f];
    }
    st->has_salt = p->has_salt;
    st->factor[0] = p->factor[0], st->factor[1] = p->factor[1];
    dg_cuda_wrap_setup(st, p);
    st->nonlinear_coefficient = p->nonlinear_coefficient;
    for (int i = 0; i < 4; ++i)
        st->chi[i] = p->chi[i];

    host_list lists[2];
    memset(lists, 0, sizeof lists);
    int status = build_host_list(p, 0, &lists[0], err);
    if (status == DG_OK) status = build_host_list(p, 1, &lists[1], err);

    /* Sizes: staging holds whole planes of the full grid in double. */
    const size_t plane_bytes = (size_t)p->nx * p->ny * sizeof(double);
    size_t slab_planes = DG_CUDA_STAGING_BYTES / plane_bytes;
    if (slab_planes < 1) slab_planes = 1;
    if (slab_planes > (size_t)p->nz) slab_planes = (size_t)p->nz;
    st->staging_bytes = slab_planes * plane_bytes;
    int max_blocks = 0;
    if (status == DG_OK) status = dg_cuda_max_blocks(st, &max_blocks, err);
    st->partial_capacity = max_blocks + dg_cuda_sparse_blocks(lists[1].total_count) + 1;

    if (status == DG_OK) {
        const size_t grids = (st->half_count[0] + st->half_count[1]) * dg_cuda_half_bytes(st);
        const size_t flags =
            p->has_salt ? st->half_count[0] + st->half_count[1] : st->half_count[1];
        const size_t sparse = list_bytes(&lists[0], 0, st->es) + list_bytes(&lists[1], 1, st->es);
        const size_t other = 2 * st->staging_bytes +
                             st->partial_capacity * sizeof(dg_cuda_partial) +
                             2 * (size_t)st->wrap_pairs * sizeof(double);
        st->medium_bytes = grids + flags + sparse + other;
        char what[400];
        snprintf(what, sizeof what,
                 "a %d x %d x %d grid in %s (half grids %.1f MiB, %s %.1f MiB, lists of %d "
                 "boundary and %d charged points %.1f MiB, work space %.1f MiB)",
                 p->nx, p->ny, p->nz,
                 st->mixed      ? "mixed precision (binary16 correction)"
                 : st->is_float ? "float"
                                : "double",
                 grids / MIB, p->has_salt ? "salt flags" : "sample marks", flags / MIB,
                 p->boundary_count[0] + p->boundary_count[1],
                 p->charge_count[0] + p->charge_count[1], sparse / MIB, other / MIB);
        status = dg_cuda_check_free(st, st->medium_bytes, what, err);
    }
    if (status == DG_OK) status = allocate_and_upload(st, p, lists, err);
    free_host_list(&lists[0]);
    free_host_list(&lists[1]);
    if (status == DG_OK) status = dg_cuda_launch_mark_sparse(st, err);
    if (status == DG_OK) {
        st->omega = 1.0;
        status = dg_cuda_launch_rescale(st, err);
    }
    if (status == DG_OK) status = dg_cuda_choose_shape(st, err);
    if (status == DG_OK)
        DG_CUDA_TRY(cudaStreamSynchronize(st->stream), "medium upload (cudaStreamSynchronize)");
    if (status != DG_OK) {
        dg_cuda_free_medium(st);
        return status;
    }
    if (st->sparse_reader == DG_CUDA_READER_TEXTURE &&
        ((st->sparse[0].total_count && !st->sparse[0].tex_index) ||
         (st->sparse[1].total_count && !st->sparse[1].tex_index)))
        st->sparse_reader = DG_CUDA_READER_LDG; /* lists too long for 1D textures */
    st->has_medium = 1;
    return DG_OK;
}

int dg_cuda_alloc_qmap(dg_cuda_state *st, dg_error *err) {
    if (st->qmap[0] && st->qmap[1]) return DG_OK;
    const size_t need = (st->half_count[0] + st->half_count[1]) * st->es;
    char what[200];
    snprintf(what, sizeof what, "the nonlinear source of a %d x %d x %d grid (%.1f MiB)", st->nx,
             st->ny, st->nz, need / MIB);
    int status = dg_cuda_check_free(st, need, what, err);
    if (status != DG_OK) return status;
    for (int c = 0; c < 2; ++c) {
        ALLOC(st->qmap[c], st->half_count[c] * st->es, "nonlinear source");
        DG_CUDA_TRY(cudaMemsetAsync(st->qmap[c], 0, st->half_count[c] * st->es, st->stream),
                    "cudaMemsetAsync (nonlinear source)");
    }
    st->medium_bytes += need;
    return DG_OK;
}
