/* delphi-gpu: DG_API marks the functions the shared library exports.  The library is compiled
 * with hidden visibility, so everything else stays internal.  A program may define DG_API
 * itself (e.g. empty) before including the headers. */
#ifndef DELPHI_GPU_EXPORT_H
#define DELPHI_GPU_EXPORT_H

#ifndef DG_API
#if defined(_WIN32)
#define DG_API
#elif defined(__GNUC__) || defined(__clang__)
#define DG_API __attribute__((visibility("default")))
#else
#define DG_API
#endif
#endif

#endif /* DELPHI_GPU_EXPORT_H */
