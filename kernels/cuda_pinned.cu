/* Page-locked host memory for the transfer slabs (cuda_transfer.cu, cuda_mg.cu).  From 2 MB on,
 * an anonymous mapping aligned to 2 MB with transparent huge pages asked for, registered with
 * CUDA: on an H100 host two 16 MB slabs took about 10 ms this way against 19-24 ms with
 * cudaHostAlloc, with the same copy speed (docs/PERFORMANCE.md run 26).  cudaHostAlloc where
 * that fails or for smaller slabs. */
#include <stdint.h>
#include <sys/mman.h>

#include "cuda_internal.cuh"

#define PIN_ALIGN ((size_t)2 << 20)

static size_t mapping_bytes(size_t bytes) {
    return (bytes + PIN_ALIGN - 1) / PIN_ALIGN * PIN_ALIGN;
}

cudaError_t dg_cuda_pin_alloc(void **ptr, size_t bytes, int *mapped) {
    *ptr = NULL, *mapped = 0;
    if (bytes >= PIN_ALIGN) {
        const size_t len = mapping_bytes(bytes);
        char *raw = (char *)mmap(NULL, len + PIN_ALIGN, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw != (char *)MAP_FAILED) {
            char *p = (char *)(((uintptr_t)raw + PIN_ALIGN - 1) & ~(uintptr_t)(PIN_ALIGN - 1));
            const size_t head = (size_t)(p - raw), tail = PIN_ALIGN - head;
            if (head) munmap(raw, head);
            if (tail) munmap(p + len, tail);
#ifdef MADV_HUGEPAGE
            madvise(p, len, MADV_HUGEPAGE); /* a hint: 4 KB pages where there are no huge ones */
#endif
            if (cudaHostRegister(p, len, cudaHostRegisterPortable) == cudaSuccess) {
                *ptr = p, *mapped = 1;
                return cudaSuccess;
            }
            cudaGetLastError(); /* not registrable here: cudaHostAlloc below */
            munmap(p, len);
        }
    }
    return cudaHostAlloc(ptr, bytes, cudaHostAllocPortable);
}

void dg_cuda_pin_free(void *ptr, size_t bytes, int mapped) {
    if (!ptr) return;
    if (mapped) {
        cudaHostUnregister(ptr);
        munmap(ptr, mapping_bytes(bytes));
    } else {
        cudaFreeHost(ptr);
    }
}
