! built by tests/scripts/build_systems.sh with each build system's MPI detection
program hello
  use mpi_f08
  implicit none
  integer :: rank, size, total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '("F ",I0," ",I0)', size, total
  call MPI_Finalize()
end program hello
