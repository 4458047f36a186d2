/* mpi_allreduce: one process per GPU, bootstrapped through MPI, on one host or several.
 *
 *   mpirun -np 2 build/examples/mpi_allreduce [elements]
 *
 * Rank 0 makes NCCL's unique id and MPI_Bcast hands it to every rank; each rank takes GPU
 * local_rank % device_count (the local rank from Open MPI's OMPI_COMM_WORLD_LOCAL_RANK, else
 * the world rank), makes its communicator with nd_comm_init_rank, and runs an allreduce of
 * rank-dependent data, checked against the sum computed on the host. MPI only carries the id:
 * the data go through NCCL (NVLink inside a host, the network between hosts).
 *
 * Exit status: 0 right on every rank, 1 wrong or an error, 77 without a GPU or NCCL. */
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <ndcuda.h>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    nd_status st_ = (call);                                                                    \
    if (st_ != ND_OK) {                                                                        \
      fprintf(stderr, "rank %d: %s failed: %s\n  %s\n", rank, #call, nd_status_name(st_),      \
              nd_last_error());                                                                \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                            \
    }                                                                                          \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int64_t n = argc > 1 ? atoll(argv[1]) : 1 << 20;
  int ndev = 0, usable = nd_comm_available() && cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0;
  int all_usable = 0;
  MPI_Allreduce(&usable, &all_usable, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_usable || n < 1) {
    if (rank == 0) fprintf(stderr, "mpi_allreduce: %s\n", n < 1 ? "usage: mpi_allreduce [elements >= 1]"
                                                                : "a rank has no GPU or no NCCL");
    MPI_Finalize();
    return n < 1 ? 2 : 77;
  }
  const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  int local = lr ? atoi(lr) : rank;
  cudaSetDevice(local % ndev);

  nd_comm_id id;
  if (rank == 0) CHECK(nd_comm_unique_id(&id));
  MPI_Bcast(id.bytes, ND_COMM_ID_BYTES, MPI_BYTE, 0, MPI_COMM_WORLD);
  nd_comm *comm;
  CHECK(nd_comm_init_rank(nranks, &id, rank, &comm));

  double *h = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; i++) h[i] = (double)((i + rank) % 11);
  nd_array *x;
  CHECK(nd_array_from_host(h, sizeof(double) * (size_t)n, 1, &n, ND_FLOAT64, &x));
  CHECK(nd_comm_allreduce(comm, x, x, ND_COMM_SUM));
  CHECK(nd_array_to_host(x, h, sizeof(double) * (size_t)n));
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; i++) {
    double want = 0;
    for (int r = 0; r < nranks; r++) want += (double)((i + r) % 11);
    wrong += h[i] != want;
  }
  int64_t total = 0;
  MPI_Reduce(&wrong, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("mpi_allreduce: %d ranks, %lld float64 each: %lld wrong %s\n", nranks, (long long)n,
           (long long)total, total ? "WRONG" : "ok");
  nd_array_release(x);
  free(h);
  CHECK(nd_comm_destroy(comm));
  MPI_Bcast(&total, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return total ? 1 : 0;
}
