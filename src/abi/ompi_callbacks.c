/* Procedures of programs built for Open MPI's ABI that the engine calls
 * (user operations, error handlers, attribute copy and delete functions,
 * generalized requests, data representations): the standard ABI's
 * trampolines, compiled over Open MPI's conversions, so the procedures get
 * Open MPI's handles, error classes and status (docs/abi.md). */
#include "ompi_conv.h"
#include "abi_tables.h"
#include "abi_callbacks.c"
