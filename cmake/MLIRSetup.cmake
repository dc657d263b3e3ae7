#===- MLIRSetup.cmake - find MLIR 19 and set up its CMake helpers ---------===#
#
# Included only when MPC_BUILD_COMPILER is ON. The include paths and LLVM
# definitions are added at directory scope here, after the runtime's
# subdirectory was processed, so the runtime never compiles against MLIR.
#===----------------------------------------------------------------------===#
if(NOT MLIR_DIR AND EXISTS /usr/lib/llvm-19/lib/cmake/mlir)
  set(MLIR_DIR /usr/lib/llvm-19/lib/cmake/mlir)
endif()
find_package(MLIR REQUIRED CONFIG)
if(NOT MLIR_VERSION_MAJOR EQUAL 19 AND NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(WARNING "mpc is developed against MLIR 19; found LLVM ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "mpc: MLIR ${MLIR_PACKAGE_VERSION} from ${MLIR_DIR}")

set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")

# Debian ships lit as a script inside the LLVM tree, not as llvm-lit.
find_program(MPC_LIT lit.py
  HINTS ${LLVM_TOOLS_BINARY_DIR}/../build/utils/lit /usr/lib/llvm-19/build/utils/lit
  NO_DEFAULT_PATH)
if(NOT MPC_LIT)
  find_program(MPC_LIT NAMES lit llvm-lit)
endif()
set(LLVM_EXTERNAL_LIT ${MPC_LIT} CACHE STRING "lit used by the test suite")

include(TableGen)
include(AddLLVM)
include(AddMLIR)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
include_directories(${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
separate_arguments(_mpc_llvm_defs UNIX_COMMAND "${LLVM_DEFINITIONS}")
add_definitions(${_mpc_llvm_defs})
link_directories(${LLVM_BUILD_LIBRARY_DIR})
