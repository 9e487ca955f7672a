// railmpi's libmpi_cxx.so.40: what Open MPI 4.1's C++ bindings need outside
// the inline code of Open MPI's header (docs/abi.md, "C++ programs"), written
// over the C API of railmpi's libmpi.so.40 (lib/openmpi-abi). Compiled
// against the class declarations of the installed Open MPI header, so the
// classes, their layout and the mangled names are Open MPI's own:
//  - the predefined C++ objects (MPI::COMM_WORLD, MPI::INT, MPI::SUM, ...),
//    initialised from the C handles when the library loads;
//  - the constructors and Free() functions the header leaves out of line;
//  - ompi_mpi_cxx_op_intercept, which calls a C++ MPI::Op function
//    (libmpi.so.40's ompi_op_set_cxx_callback hands it the function);
//  - MPI::InitializeIntercepts (called by MPI::Init), which makes
//    MPI::ERRORS_THROW_EXCEPTIONS an error handler that throws MPI::Exception.
#include <mpi.h>

namespace MPI {

// the predefined objects, from the C handles
const Errhandler ERRORS_ARE_FATAL(MPI_ERRORS_ARE_FATAL);
const Errhandler ERRORS_RETURN(MPI_ERRORS_RETURN);
// set to a throwing handler by InitializeIntercepts (MPI::Init)
const Errhandler ERRORS_THROW_EXCEPTIONS(MPI_ERRHANDLER_NULL);

const Datatype CHAR(MPI_CHAR);
const Datatype SHORT(MPI_SHORT);
const Datatype INT(MPI_INT);
const Datatype LONG(MPI_LONG);
const Datatype SIGNED_CHAR(MPI_SIGNED_CHAR);
const Datatype UNSIGNED_CHAR(MPI_UNSIGNED_CHAR);
const Datatype UNSIGNED_SHORT(MPI_UNSIGNED_SHORT);
const Datatype UNSIGNED(MPI_UNSIGNED);
const Datatype UNSIGNED_LONG(MPI_UNSIGNED_LONG);
const Datatype FLOAT(MPI_FLOAT);
const Datatype DOUBLE(MPI_DOUBLE);
const Datatype LONG_DOUBLE(MPI_LONG_DOUBLE);
const Datatype BYTE(MPI_BYTE);
const Datatype PACKED(MPI_PACKED);
const Datatype WCHAR(MPI_WCHAR);
const Datatype FLOAT_INT(MPI_FLOAT_INT);
const Datatype DOUBLE_INT(MPI_DOUBLE_INT);
const Datatype LONG_INT(MPI_LONG_INT);
const Datatype TWOINT(MPI_2INT);
const Datatype SHORT_INT(MPI_SHORT_INT);
const Datatype LONG_DOUBLE_INT(MPI_LONG_DOUBLE_INT);
const Datatype INTEGER(MPI_INTEGER);
const Datatype REAL(MPI_REAL);
const Datatype DOUBLE_PRECISION(MPI_DOUBLE_PRECISION);
const Datatype F_COMPLEX(MPI_COMPLEX);
const Datatype LOGICAL(MPI_LOGICAL);
const Datatype CHARACTER(MPI_CHARACTER);
const Datatype TWOREAL(MPI_2REAL);
const Datatype TWODOUBLE_PRECISION(MPI_2DOUBLE_PRECISION);
const Datatype TWOINTEGER(MPI_2INTEGER);
const Datatype INTEGER1(MPI_INTEGER1);
const Datatype INTEGER2(MPI_INTEGER2);
const Datatype INTEGER4(MPI_INTEGER4);
// Open MPI built without REAL*2 defines no MPI_REAL2, but exports the object
const Datatype REAL2(reinterpret_cast<MPI_Datatype>(&ompi_mpi_real2));
const Datatype REAL4(MPI_REAL4);
const Datatype REAL8(MPI_REAL8);
const Datatype LONG_LONG(MPI_LONG_LONG);
const Datatype LONG_LONG_INT(MPI_LONG_LONG_INT);
const Datatype UNSIGNED_LONG_LONG(MPI_UNSIGNED_LONG_LONG);
const Datatype BOOL(MPI_CXX_BOOL);
const Datatype COMPLEX(MPI_CXX_FLOAT_COMPLEX);
const Datatype DOUBLE_COMPLEX(MPI_CXX_DOUBLE_COMPLEX);
const Datatype F_DOUBLE_COMPLEX(MPI_DOUBLE_COMPLEX);
const Datatype LONG_DOUBLE_COMPLEX(MPI_CXX_LONG_DOUBLE_COMPLEX);

Intracomm COMM_WORLD(MPI_COMM_WORLD);
Intracomm COMM_SELF(MPI_COMM_SELF);

const Op MAX(MPI_MAX);
const Op MIN(MPI_MIN);
const Op SUM(MPI_SUM);
const Op PROD(MPI_PROD);
const Op MAXLOC(MPI_MAXLOC);
const Op MINLOC(MPI_MINLOC);
const Op BAND(MPI_BAND);
const Op BOR(MPI_BOR);
const Op BXOR(MPI_BXOR);
const Op LAND(MPI_LAND);
const Op LOR(MPI_LOR);
const Op LXOR(MPI_LXOR);
const Op REPLACE(MPI_REPLACE);

const Group GROUP_NULL(MPI_GROUP_NULL);
const Win WIN_NULL(MPI_WIN_NULL);
const Info INFO_NULL(MPI_INFO_NULL);
Comm_Null COMM_NULL(MPI_COMM_NULL);
const Datatype DATATYPE_NULL(MPI_DATATYPE_NULL);
Request REQUEST_NULL(MPI_REQUEST_NULL);
const Op OP_NULL(MPI_OP_NULL);
const Errhandler ERRHANDLER_NULL(MPI_ERRHANDLER_NULL);
const File FILE_NULL(MPI_FILE_NULL);
const Group GROUP_EMPTY(MPI_GROUP_EMPTY);

void *const BOTTOM = (void *)MPI_BOTTOM;
void *const IN_PLACE = (void *)MPI_IN_PLACE;
const char **ARGV_NULL = 0;
const char ***ARGVS_NULL = 0;

int mpi_errno = MPI_SUCCESS;
extern const char ompi_libcxx_version_string[] = "4.1.4";

Comm::Comm() {}

Comm::Comm(const Comm_Null &data) : Comm_Null(data) {}

void Datatype::Free()
{
    (void)MPI_Type_free(&mpi_datatype);
}

void Win::Free()
{
    (void)MPI_Win_free(&mpi_win);
}

void File::Close()
{
    (void)MPI_File_close(&mpi_file);
}

} // namespace MPI

// MPI::Op::Init (Open MPI's header) creates the op with this function and
// hands the C++ function to ompi_op_set_cxx_callback (libmpi.so.40), which
// passes it back here as fn
extern "C" void ompi_mpi_cxx_op_intercept(void *invec, void *outvec, int *len,
                                          MPI_Datatype *datatype, MPI_User_function *fn)
{
    MPI::Datatype type(*datatype);
    ((MPI::User_function *)(void (*)(void))fn)(invec, outvec, *len, type);
}

// ERRORS_THROW_EXCEPTIONS: the error code becomes an MPI::Exception thrown
// out of the call that failed
extern "C" void ompi_mpi_cxx_throw_exception(int *errcode)
{
    throw MPI::Exception(*errcode);
}

extern "C" void ompi_mpi_cxx_comm_throw_excptn_fctn(MPI_Comm *, int *errcode, ...)
{
    ompi_mpi_cxx_throw_exception(errcode);
}

extern "C" void ompi_mpi_cxx_win_throw_excptn_fctn(MPI_Win *, int *errcode, ...)
{
    ompi_mpi_cxx_throw_exception(errcode);
}

extern "C" void ompi_mpi_cxx_file_throw_excptn_fctn(MPI_File *, int *errcode, ...)
{
    ompi_mpi_cxx_throw_exception(errcode);
}

void MPI::InitializeIntercepts()
{
    int init = 0;
    if (MPI_Errhandler(ERRORS_THROW_EXCEPTIONS) != MPI_ERRHANDLER_NULL ||
        MPI_Initialized(&init) != MPI_SUCCESS || !init)
        return;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (MPI_Comm_create_errhandler(ompi_mpi_cxx_comm_throw_excptn_fctn, &eh) == MPI_SUCCESS)
        const_cast<MPI::Errhandler &>(ERRORS_THROW_EXCEPTIONS) = eh;
}
