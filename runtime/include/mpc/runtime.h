/*===- mpc/runtime.h - the mpc runtime C API -------------------------------===
 *
 * Part of mpc, a mixed-precision training compiler.
 *
 * The runtime loads compiled training steps and runs them. Every fallible
 * call returns an mpc_status_code; MPC_OK is 0. This header grows with the
 * runtime; what it declares is implemented.
 *
 * Thread safety: the functions declared here are pure and may be called
 * from any thread.
 *===----------------------------------------------------------------------===*/

#ifndef MPC_RUNTIME_H
#define MPC_RUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

/** Outcome of a runtime call. */
typedef enum mpc_status_code {
  MPC_OK = 0,
  MPC_INVALID_ARGUMENT = 1, /**< a caller error: null pointer, wrong name, shape */
  MPC_NOT_FOUND = 2,        /**< a file, input or parameter does not exist */
  MPC_IO_ERROR = 3,         /**< reading or writing a file failed */
  MPC_FORMAT_ERROR = 4,     /**< a file is damaged, truncated or foreign */
  MPC_UNSUPPORTED = 5,      /**< the request needs something this build lacks */
  MPC_INTERNAL = 6          /**< a bug in mpc */
} mpc_status_code;

/** A static, human-readable name of `code` ("ok", "invalid argument", ...);
 *  "unknown status" for values outside the enum. Never NULL. */
const char *mpc_status_code_name(mpc_status_code code);

/** The runtime's version, "MAJOR.MINOR.PATCH". Never NULL. */
const char *mpc_runtime_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MPC_RUNTIME_H */
