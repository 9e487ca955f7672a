# Open MPI's ABI (docs/abi.md): libmpi.so.40 in lib/openmpi-abi/, the same
# engine under a translation layer tools/abi/ompi_gen.py writes from
# tools/api/mpi_api.txt and Open MPI 4.1's tables (tools/abi/ompi_*.txt). It
# shares the renamed engine bindings with libmpi_abi.so. Its own directory
# keeps it from shadowing a system Open MPI: `mpiexec -abi openmpi` points
# LD_LIBRARY_PATH there.
set(RM_OMPI_DIR ${CMAKE_BINARY_DIR}/src/abi/ompi)
set(RM_OGEN ${PROJECT_SOURCE_DIR}/tools/abi/ompi_gen.py)
set(RM_OGEN_OUT ${RM_OMPI_DIR}/ompi_bind.c ${RM_OMPI_DIR}/abi_tables.h ${RM_OMPI_DIR}/ompi_objects.c
  ${RM_OMPI_DIR}/abi_rename.h ${RM_OMPI_DIR}/abi_unrename.h ${RM_OMPI_DIR}/libmpi_ompi.map)
add_custom_command(
  OUTPUT ${RM_OGEN_OUT}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${RM_OMPI_DIR}
  COMMAND Python3::Interpreter ${RM_OGEN} --api ${RM_FAPI} --mpih ${PROJECT_SOURCE_DIR}/include/mpi.h
          --table ${PROJECT_SOURCE_DIR}/tools/abi/ompi_constants.txt
          --objects-table ${PROJECT_SOURCE_DIR}/tools/abi/ompi_objects.txt
          --functions ${PROJECT_SOURCE_DIR}/tools/abi/ompi_functions.txt
          --fortran-table ${PROJECT_SOURCE_DIR}/tools/abi/ompi_fortran.txt
          --c ${RM_OMPI_DIR}/ompi_bind.c --tables ${RM_OMPI_DIR}/abi_tables.h
          --objects ${RM_OMPI_DIR}/ompi_objects.c
          --rename ${RM_OMPI_DIR}/abi_rename.h --unrename ${RM_OMPI_DIR}/abi_unrename.h
          --map ${RM_OMPI_DIR}/libmpi_ompi.map
  DEPENDS ${RM_OGEN} ${RM_AGEN} ${PROJECT_SOURCE_DIR}/tools/abi/abi_kinds.py
          ${PROJECT_SOURCE_DIR}/tools/abi/ompi_constants.txt ${PROJECT_SOURCE_DIR}/tools/abi/ompi_objects.txt
          ${PROJECT_SOURCE_DIR}/tools/abi/ompi_functions.txt ${PROJECT_SOURCE_DIR}/tools/abi/ompi_fortran.txt ${RM_FAPI} ${PROJECT_SOURCE_DIR}/include/mpi.h
  COMMENT "Generating Open MPI's ABI bindings")
add_custom_target(ompi_gen DEPENDS ${RM_OGEN_OUT})

add_library(mpi_ompi SHARED abi/ompi_conv.c abi/abi_engine.c abi/ompi_fhandle.c abi/ompi_fpredef.c
  abi/ompi_affinity.c abi/ompi_callbacks.c abi/ompi_mpit.c ${RM_OMPI_DIR}/ompi_bind.c
  ${RM_OMPI_DIR}/ompi_objects.c)
add_dependencies(mpi_ompi ompi_gen abi_bind_rmi)
# the generated abi_tables.h and abi_rename.h are Open MPI's here, not the standard ABI's
target_include_directories(mpi_ompi PRIVATE ${RM_OMPI_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/abi
  ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(mpi_ompi PRIVATE
  -Wl,--whole-archive ${RM_ABI_BIND_LIB} railmpi_core railmpi_boot railmpi_util -Wl,--no-whole-archive
  PkgConfig::HWLOC ${CMAKE_DL_LIBS} Threads::Threads m)
target_link_options(mpi_ompi PRIVATE -Wl,--version-script=${RM_OMPI_DIR}/libmpi_ompi.map -Wl,-z,defs)
set_target_properties(mpi_ompi PROPERTIES OUTPUT_NAME mpi VERSION 40.30.4 SOVERSION 40
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/openmpi-abi
  LINK_DEPENDS "${RM_OMPI_DIR}/libmpi_ompi.map;${RM_ABI_BIND_LIB}")
# no libmpi.so link: nothing is meant to link against this library
install(TARGETS mpi_ompi LIBRARY DESTINATION lib/openmpi-abi NAMELINK_SKIP)

# libmpi_mpifh.so.40: the bindings of Open MPI's mpif.h (its Fortran handles,
# statuses and sentinels) over the C ABI above, written by
# tools/fortran/ompi_fgen.py from the same description as railmpi's own
# Fortran bindings; functions libmpi.so.40 exports only.
set(RM_OFGEN ${PROJECT_SOURCE_DIR}/tools/fortran/ompi_fgen.py)
add_custom_command(
  OUTPUT ${RM_OMPI_DIR}/ompi_fbind.c ${RM_OMPI_DIR}/ompi_f08bind.c ${RM_OMPI_DIR}/ompi_tkr.c
  COMMAND Python3::Interpreter ${RM_OFGEN} --api ${RM_FAPI} --map ${RM_OMPI_DIR}/libmpi_ompi.map
          --c ${RM_OMPI_DIR}/ompi_fbind.c --c-f08 ${RM_OMPI_DIR}/ompi_f08bind.c
          --c-tkr ${RM_OMPI_DIR}/ompi_tkr.c
  DEPENDS ${RM_OFGEN} ${PROJECT_SOURCE_DIR}/tools/fortran/gen.py ${RM_FAPI} ${RM_OMPI_DIR}/libmpi_ompi.map
  COMMENT "Generating Open MPI's mpif.h bindings")
# one target runs the generator, which both libraries wait for
add_custom_target(ompi_fgen DEPENDS ${RM_OMPI_DIR}/ompi_fbind.c ${RM_OMPI_DIR}/ompi_f08bind.c
  ${RM_OMPI_DIR}/ompi_tkr.c)
add_dependencies(ompi_fgen ompi_gen)
add_library(mpi_mpifh_ompi SHARED abi/ompi_fortran.c abi/ompi_fcallbacks.c ${RM_OMPI_DIR}/ompi_fbind.c
  abi/ompi_fextra.c fortran/f_strings.c)
# f_strings.c with Open MPI's types and sentinels
target_compile_definitions(mpi_mpifh_ompi PRIVATE F_STRINGS_HEADER="ompi_fortran.h")
target_include_directories(mpi_mpifh_ompi PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/abi)
add_dependencies(mpi_mpifh_ompi ompi_fgen)
target_link_libraries(mpi_mpifh_ompi PRIVATE mpi_ompi)
target_link_options(mpi_mpifh_ompi PRIVATE -Wl,-z,defs)
set_target_properties(mpi_mpifh_ompi PROPERTIES OUTPUT_NAME mpi_mpifh VERSION 40.30.0 SOVERSION 40
  C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/openmpi-abi)
install(TARGETS mpi_mpifh_ompi LIBRARY DESTINATION lib/openmpi-abi NAMELINK_SKIP)

# libmpi_usempif08.so.40: the entry points of Open MPI's mpi_f08 module for
# gfortran (mpi_send_f08_, ...; the same bodies) and its handles' == and /=
# and the procedures of ompi_fcallbacks.c and ompi_fpredef.c under the module's names
add_library(mpi_usempif08_ompi SHARED abi/ompi_fortran.c ${RM_OMPI_DIR}/ompi_f08bind.c
  abi/ompi_fcallbacks.c abi/ompi_fpredef.c abi/ompi_fextra.c fortran/f_strings.c)
target_compile_definitions(mpi_usempif08_ompi PRIVATE OMPI_F08 F_STRINGS_HEADER="ompi_fortran.h")
target_include_directories(mpi_usempif08_ompi PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/abi)
add_dependencies(mpi_usempif08_ompi ompi_fgen)
target_link_libraries(mpi_usempif08_ompi PRIVATE mpi_ompi)
target_link_options(mpi_usempif08_ompi PRIVATE -Wl,-z,defs)
set_target_properties(mpi_usempif08_ompi PROPERTIES OUTPUT_NAME mpi_usempif08 VERSION 40.30.0 SOVERSION 40
  C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/openmpi-abi)
install(TARGETS mpi_usempif08_ompi LIBRARY DESTINATION lib/openmpi-abi NAMELINK_SKIP)

# libmpi_usempi_ignore_tkr.so.40: the library of Open MPI's `use mpi` module for
# gfortran, which a program linked without --as-needed names: MPI_SIZEOF's
# specifics and the sentinels' common blocks, as Open MPI's (it needs nothing)
add_library(mpi_usempi_ignore_tkr_ompi SHARED ${RM_OMPI_DIR}/ompi_tkr.c)
target_include_directories(mpi_usempi_ignore_tkr_ompi PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/abi)
add_dependencies(mpi_usempi_ignore_tkr_ompi ompi_fgen)
target_link_options(mpi_usempi_ignore_tkr_ompi PRIVATE -Wl,-z,defs)
set_target_properties(mpi_usempi_ignore_tkr_ompi PROPERTIES OUTPUT_NAME mpi_usempi_ignore_tkr
  VERSION 40.30.0 SOVERSION 40 C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/openmpi-abi)
install(TARGETS mpi_usempi_ignore_tkr_ompi LIBRARY DESTINATION lib/openmpi-abi NAMELINK_SKIP)

# railmpi's libmpi_cxx.so.40 (docs/abi.md, "C++ programs"): Open MPI's C++
# bindings over libmpi.so.40 above, compiled against the class declarations of
# the installed Open MPI header (Debian's libopenmpi-dev); without that header
# it is not built and the tests that need it skip.
find_path(RM_OMPI_CXX_INCLUDE openmpi/ompi/mpi/cxx/mpicxx.h
  HINTS /usr/lib/x86_64-linux-gnu/openmpi/include /usr/lib/openmpi/include /usr/include/openmpi
  NO_DEFAULT_PATH)
# It is railmpi's one C++ part: the C++ compiler is enabled for it alone.
include(CheckLanguage)
if(RM_OMPI_CXX_INCLUDE)
  check_language(CXX)
endif()
if(RM_OMPI_CXX_INCLUDE AND EXISTS ${RM_OMPI_CXX_INCLUDE}/mpi.h AND CMAKE_CXX_COMPILER)
  enable_language(CXX)
  add_library(mpi_cxx_ompi SHARED abi/cxx/ompi_cxx.cc abi/cxx/ompi_cxx_callbacks.cc)
  # Open MPI's header, as a system one: its inline code does not build
  # warning-free
  target_include_directories(mpi_cxx_ompi SYSTEM PRIVATE ${RM_OMPI_CXX_INCLUDE} ${RM_OMPI_CXX_INCLUDE}/openmpi)
  target_link_libraries(mpi_cxx_ompi PRIVATE mpi_ompi)
  target_link_options(mpi_cxx_ompi PRIVATE -Wl,-z,defs
    -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/abi/cxx/libmpi_cxx.map)
  set_target_properties(mpi_cxx_ompi PROPERTIES OUTPUT_NAME mpi_cxx VERSION 40.30.1 SOVERSION 40
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/openmpi-abi
    LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/abi/cxx/libmpi_cxx.map)
  install(TARGETS mpi_cxx_ompi LIBRARY DESTINATION lib/openmpi-abi NAMELINK_SKIP)
else()
  message(STATUS "Open MPI's C++ header or a C++ compiler not found: lib/openmpi-abi/libmpi_cxx.so.40 is not built")
endif()
