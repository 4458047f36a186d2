/* Symbol visibility for ndcuda.
 *
 * The library is built with hidden visibility; only declarations marked ND_API are exported.
 * Consumers of the static library define ND_STATIC_DEFINE (the exported CMake target does it
 * for them), which makes ND_API empty. */
#ifndef NDCUDA_EXPORT_H
#define NDCUDA_EXPORT_H

#if defined(ND_STATIC_DEFINE)
#define ND_API
#elif defined(_WIN32)
#if defined(ND_BUILDING_LIBRARY)
#define ND_API __declspec(dllexport)
#else
#define ND_API __declspec(dllimport)
#endif
#else
#define ND_API __attribute__((visibility("default")))
#endif

#endif /* NDCUDA_EXPORT_H */
