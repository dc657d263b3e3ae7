/*===- mpc/runtime.h - the mpc runtime C API -------------------------------===
 *
 * Part of mpc, a mixed-precision training compiler.
 *
 * The runtime loads a compiled training step (a bundle written by
 * `mpc compile`) and runs it:
 *
 *   mpc_program_options options;
 *   mpc_program_options_initialize(&options);
 *   options.seed = 42;
 *   mpc_program *program = NULL;
 *   if (mpc_program_load("mlp.mpcb", &options, &program) != MPC_OK) {
 *     fprintf(stderr, "%s\n", mpc_last_error());
 *     return 1;
 *   }
 *   mpc_program_set_input(program, "pixels", pixels, sizeof pixels);
 *   mpc_program_run(program);
 *   mpc_program_get_output(program, "logits", logits, sizeof logits);
 *   mpc_program_save_params(program, "mlp.safetensors");
 *   mpc_program_release(program);
 *
 * Devices: "cpu" runs a run to its end before mpc_program_run returns.
 * "cuda" (the first GPU) or "cuda:N" enqueues it: mpc_program_run returns at
 * once, and waits only when three runs are already in flight. Reading an
 * output, a parameter or a checkpoint waits for the runs in flight. To watch
 * training without stopping the GPU, read telemetry instead: a few small
 * outputs per run (options.telemetry) that can be read with
 * mpc_program_get_telemetry as soon as that run has completed.
 *
 * Errors: every fallible call returns an mpc_status_code (MPC_OK is 0) and,
 * on failure, sets the calling thread's last-error text, which names the
 * file, tensor or kernel at fault (mpc_last_error). A failed call changes
 * nothing: outputs are written, and state is modified, only on success.
 *
 * Ownership: a program is created by mpc_program_load and owned by the
 * caller until mpc_program_release. The runtime copies whatever data it is
 * given; strings and shapes it returns belong to the runtime and stay valid
 * as documented at each function.
 *
 * Thread safety: functions without a program argument may be called from
 * any thread at any time. Different programs may be used concurrently from
 * different threads; one program takes one call at a time: the caller
 * serialises the calls on a program (e.g. with a mutex), and a call made
 * while another thread is inside one on the same program is refused with
 * MPC_BUSY, touching nothing. The *_count and *_info functions, which read
 * only what a load fixes, may be called from any thread at any time while
 * the program lives. mpc_program_release must not race with any call on
 * the program it releases.
 *
 * Memory layout of tensor data: dense, row-major (C order), little-endian;
 * f16 and bf16 elements are their 16-bit patterns, i1 is one byte (0 or 1).
 *===----------------------------------------------------------------------===*/

#ifndef MPC_RUNTIME_H
#define MPC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

/* The C API is what the shared library exports; it is built with every
 * other symbol hidden. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Outcome of a runtime call. */
typedef enum mpc_status_code {
  MPC_OK = 0,
  MPC_INVALID_ARGUMENT = 1,   /**< a caller error: null pointer, wrong size */
  MPC_NOT_FOUND = 2,          /**< a file, input or parameter does not exist */
  MPC_IO_ERROR = 3,           /**< reading or writing a file failed */
  MPC_FORMAT_ERROR = 4,       /**< a file is damaged, truncated or foreign */
  MPC_UNSUPPORTED = 5,        /**< the request needs something this build lacks */
  MPC_INTERNAL = 6,           /**< a bug in mpc */
  MPC_RESOURCE_EXHAUSTED = 7, /**< memory (host or device) ran out */
  MPC_NOT_READY = 8,          /**< a run has not completed yet; ask again */
  MPC_BUSY = 9,               /**< another thread is inside a call on the program */
  /* Not statuses: they make the type as wide as an int in C++ as in C, so
   * that any int a caller passes (mpc_status_code_name) is one of its values. */
  MPC_STATUS_CODE_INT_MIN_ = -2147483647 - 1,
  MPC_STATUS_CODE_INT_MAX_ = 2147483647
} mpc_status_code;

/** A static, human-readable name of `code` ("ok", "invalid argument", ...);
 *  "unknown status" for values outside the enum. Never NULL. */
const char *mpc_status_code_name(mpc_status_code code);

/** The runtime's version, "MAJOR.MINOR.PATCH". Never NULL. */
const char *mpc_runtime_version(void);

/** The message of the last call on this thread that failed, or "" when none
 *  has. Successful calls leave it as it is. The text stays valid until the
 *  next failing call on the same thread. Never NULL. */
const char *mpc_last_error(void);

/** A loaded program: its memory, kernels and parameters. Opaque. */
typedef struct mpc_program mpc_program;

/** How to load a program. Initialise with mpc_program_options_initialize,
 *  then change fields; fields added later get defaults there. */
typedef struct mpc_program_options {
  /** "cpu" (the default; NULL means it too), "cuda" (the first GPU) or
   *  "cuda:N" (the N-th, from 0) when the runtime is built with CUDA (see
   *  mpc_device_check). The string is read during mpc_program_load only. */
  const char *device;
  /** Seed of the random parameter initialisation (default 0). The same
   *  seed gives the same values on every platform; each tensor's values
   *  depend only on the seed and its name. */
  uint64_t seed;
  /** The outputs every run reports as telemetry, as a comma-separated list
   *  of names ("loss,loss_scale,skipped"); NULL (the default) for every
   *  output of at most 64 elements (the loss, the loss scale, counters), ""
   *  for none. Read during mpc_program_load only. */
  const char *telemetry;
  /** How many runs' telemetry is kept (default 1024, at least 1, at most
   *  2^20: MPC_INVALID_ARGUMENT above): the telemetry of run r can be read
   *  until run r + telemetry_depth completes. */
  size_t telemetry_depth;
} mpc_program_options;

/** Sets `options` to the defaults. */
void mpc_program_options_initialize(mpc_program_options *options);

/** MPC_OK when programs can be loaded for `device` on this machine;
 *  otherwise MPC_UNSUPPORTED with the reason as the last error (no NVIDIA
 *  driver, no such GPU, a runtime built without CUDA, an unknown device). */
mpc_status_code mpc_device_check(const char *device);

/** Loads the bundle at `path` with `options` (NULL for the defaults) and
 *  sets `*out` to the new program, whose parameters and state hold their
 *  initial values. On failure `*out` is left unchanged. Errors:
 *  MPC_NOT_FOUND / MPC_IO_ERROR for the file, MPC_FORMAT_ERROR for a
 *  damaged, foreign or inconsistent bundle (a kernel missing from its host
 *  object included), MPC_UNSUPPORTED for another bundle format version or a
 *  device this build lacks, MPC_RESOURCE_EXHAUSTED when memory runs out. */
mpc_status_code mpc_program_load(const char *path,
                                 const mpc_program_options *options,
                                 mpc_program **out);

/** Releases `program` and everything it owns. NULL is ignored. */
void mpc_program_release(mpc_program *program);

/** mpc_tensor_info.flags of a parameter that the optimizer updates. */
#define MPC_TENSOR_TRAINABLE 1u
/** mpc_tensor_info.flags of optimizer or loss-scaling state. */
#define MPC_TENSOR_STATE 2u
/** mpc_tensor_info.flags of a low-precision working copy of a parameter: the
 *  runtime keeps it equal to the parameter converted, so it cannot be set
 *  and is left out of checkpoints. */
#define MPC_TENSOR_WORKING_COPY 4u

/** A description of an input, output or parameter. The pointers stay valid
 *  until the program is released. */
typedef struct mpc_tensor_info {
  const char *name;     /**< NUL-terminated */
  const char *dtype;    /**< "f16", "bf16", "f32", "f64", "i32", "i64", "i1" */
  size_t rank;          /**< number of dimensions, 0 for a scalar */
  const int64_t *shape; /**< rank dimensions; may be NULL when rank is 0 */
  size_t bytes;         /**< size of the tensor's data */
  uint32_t flags;       /**< MPC_TENSOR_* for parameters, 0 otherwise */
} mpc_tensor_info;

/** The number of inputs, outputs and parameters (state included) of
 *  `program`; 0 for NULL. Indices of the *_info functions are below it. */
size_t mpc_program_input_count(const mpc_program *program);
size_t mpc_program_output_count(const mpc_program *program);
size_t mpc_program_param_count(const mpc_program *program);

/** Describes input, output or parameter `index` in `*info`.
 *  MPC_INVALID_ARGUMENT for a NULL argument or an index out of range. */
mpc_status_code mpc_program_input_info(const mpc_program *program,
                                       size_t index, mpc_tensor_info *info);
mpc_status_code mpc_program_output_info(const mpc_program *program,
                                        size_t index, mpc_tensor_info *info);
mpc_status_code mpc_program_param_info(const mpc_program *program,
                                       size_t index, mpc_tensor_info *info);

/** Copies `bytes` bytes from `data` as input `name`, which keeps that value
 *  for every later run until it is set again. `bytes` must be the input's
 *  size. MPC_NOT_FOUND for an unknown name, MPC_INVALID_ARGUMENT for a wrong
 *  size or a NULL argument. */
mpc_status_code mpc_program_set_input(mpc_program *program, const char *name,
                                      const void *data, size_t bytes);

/** Runs the program's step once. Every input must have been set
 *  (MPC_INVALID_ARGUMENT names the first that was not). On "cuda" the run
 *  is enqueued; inputs may be set again for the next run at once. A run
 *  that fails on the GPU is reported by the call that next waits for it. */
mpc_status_code mpc_program_run(mpc_program *program);

/** Sets `*count` to the number of runs started since load. */
mpc_status_code mpc_program_run_count(const mpc_program *program,
                                      uint64_t *count);

/** Sets `*count` to the number of runs that have completed, without
 *  waiting. Runs complete in order, so runs 0 .. *count - 1 are done. */
mpc_status_code mpc_program_completed_runs(mpc_program *program,
                                           uint64_t *count);

/** Waits for every run in flight. */
mpc_status_code mpc_program_synchronize(mpc_program *program);

/** Copies telemetry output `name` of run `run` (0 is the first run since
 *  load) to `data`, which holds `bytes` bytes, the output's size, without
 *  waiting. MPC_NOT_READY while the run is in flight; MPC_NOT_FOUND for an
 *  output that is not telemetry, or a run older than the last
 *  telemetry_depth completed ones; MPC_INVALID_ARGUMENT for a run not
 *  started. */
mpc_status_code mpc_program_get_telemetry(mpc_program *program, uint64_t run,
                                          const char *name, void *data,
                                          size_t bytes);

/** Counters of a program's work on its device. */
typedef struct mpc_program_stats {
  uint64_t runs;           /**< runs started since load */
  uint64_t graph_launches; /**< CUDA graphs launched (one per run on "cuda") */
  /** times the host waited for the GPU to finish all its work (reading or
   *  writing an output, a parameter or a checkpoint; synchronize) */
  uint64_t host_syncs;
  /** times mpc_program_run waited for the oldest of the runs in flight */
  uint64_t throttle_waits;
  uint64_t device_bytes;   /**< device memory allocated for the program */
  /** e.g. "cpu", "cuda:0 (NVIDIA H200, sm_90)"; valid until the program
   *  is released or this function is called again for it */
  const char *device;
} mpc_program_stats;

/** Fills `*stats`. */
mpc_status_code mpc_program_get_stats(const mpc_program *program,
                                      mpc_program_stats *stats);

/** Copies output `name` of the last run to `data`, which holds `bytes`
 *  bytes, the output's size. MPC_INVALID_ARGUMENT before the first run. */
mpc_status_code mpc_program_get_output(const mpc_program *program,
                                       const char *name, void *data,
                                       size_t bytes);

/** Copies the current value of parameter (or state) `name` to `data`, or
 *  replaces it with `bytes` bytes from `data`; `bytes` must be its size. */
mpc_status_code mpc_program_get_param(const mpc_program *program,
                                      const char *name, void *data,
                                      size_t bytes);
mpc_status_code mpc_program_set_param(mpc_program *program, const char *name,
                                      const void *data, size_t bytes);

/** Writes every parameter and piece of state to a safetensors file at
 *  `path`, atomically: a failure or a crash leaves the old file or the
 *  complete new one. Tensor names are the parameter names. */
mpc_status_code mpc_program_save_params(const mpc_program *program,
                                        const char *path);

/** Replaces every parameter and piece of state with the tensors of the
 *  safetensors file at `path`, which must hold exactly the program's
 *  parameters with their dtypes and shapes; otherwise nothing changes and
 *  the MPC_FORMAT_ERROR message names each missing, extra or mismatched
 *  tensor. */
mpc_status_code mpc_program_load_params(mpc_program *program,
                                        const char *path);

/* ---- Data-parallel jobs ------------------------------------------------
 * Data-parallel training runs one process per device, each a rank of a job
 * that a launcher started (`mpirun -np N`: MPI, when the runtime is built
 * with it); a process that no launcher started is a job of one rank. A
 * program whose bundle has all_reduce steps joins its process's job when it
 * is loaded. An application opens the job to learn its rank (which part of
 * each batch is its own) and to reduce what it computes outside a program
 * (evaluation metrics). Every call below but rank, size and transport is
 * collective: each rank makes the same calls in the same order, with the
 * same counts and types, and loads programs with all_reduce steps in the
 * same order too. */

/** A process's membership of its job. Opaque. */
typedef struct mpc_job mpc_job;

/** Joins the job of this process and sets `*out` to it. Errors: a launcher's
 *  job of several ranks in a runtime built without MPI, an MPI that does not
 *  start, a launcher's environment without the launcher (MPC_UNSUPPORTED,
 *  MPC_IO_ERROR). */
mpc_status_code mpc_job_open(mpc_job **out);

/** The number of ranks the launcher's environment names for this process
 *  (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_SIZE), 1 when no launcher started
 *  it; joins nothing (a process may compile its step before it joins). */
int mpc_job_launched_size(void);

/** Leaves the job; NULL is ignored. */
void mpc_job_release(mpc_job *job);

/** This process's rank, from 0, and the number of ranks (0 and 1 for NULL). */
int mpc_job_rank(const mpc_job *job);
int mpc_job_size(const mpc_job *job);

/** What carries the collectives: "single process" or "MPI (...)". Valid
 *  while the job is; "" for NULL. */
const char *mpc_job_transport(const mpc_job *job);

/** Reduces `count` elements of `dtype` ("f32", "f64", "f16", "bf16", "i32")
 *  at `data` over every rank, in place, with `op` "sum", "max" or "mean" (of
 *  floats: the sum over the number of ranks). f16 and bf16 reduce in f32 and
 *  round once: every rank ends with the same bits. */
mpc_status_code mpc_job_all_reduce(mpc_job *job, void *data, size_t count, const char *dtype,
                                   const char *op);

/** Ends every rank of the job with exit code `code`: what a rank that fails
 *  alone calls, so that the others do not wait for it in a collective (MPI's
 *  MPI_Abort; mpirun reports it). Not collective. In a job of one rank (or
 *  for NULL) it does nothing and returns. */
void mpc_job_abort(mpc_job *job, int code);

/** Compares this rank's `digest` (a hash of what every rank should hold
 *  alike, e.g. its parameters) with rank 0's and sets `*rank`, on every
 *  rank, to the lowest rank whose digest differs, or -1 when none does. */
mpc_status_code mpc_job_first_differing_rank(mpc_job *job, uint64_t digest, int *rank);

/** Copies `bytes` bytes at `data` on rank `root` to `data` on every rank. */
mpc_status_code mpc_job_broadcast(mpc_job *job, void *data, size_t bytes, int root);

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#endif /* MPC_RUNTIME_H */
