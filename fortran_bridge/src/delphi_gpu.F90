!> delphi_gpu: Fortran 2008 interface to the delphi-gpu Poisson-Boltzmann solver library.
!>
!>   use delphi_gpu
!>   type(dg_solver) :: solver
!>   type(dg_options) :: options
!>   type(dg_result) :: result
!>   call dg_default_options(options)
!>   options%max_change_tol = 1d-4
!>   call dg_create(solver, options)
!>   call dg_set_sparse_medium(solver, medium)      ! or dg_set_dense_medium
!>   call dg_solve(solver, phimap, result)          ! phimap(igrid, igrid, igrid), in place
!>   call dg_destroy(solver)
!>
!> Conventions (see delphi_gpu_types.h):
!>  - Grids are x fastest, exactly as DelPhi phimap(igrid,igrid,igrid): arrays pass with no copy
!>    and no reversed dimensions.  Half-indices in sparse lists are the 1-based DelPhi ones.
!>  - Every real routine exists for real(c_float) and real(c_double) under one generic name;
!>    the specific names end in _f and _d.  A generic name needs rank-1 arrays (dg_solve also
!>    takes phi(nx,ny,nz)); the specific names take arrays of any rank by sequence association,
!>    e.g. dg_delphi_itit_f(idpos, db, ...) with db(6,nsp) and phimap(igrid,igrid,igrid).
!>  - Every wrapper has an optional status argument (a dg_status value, DG_OK = 0).  Without
!>    it, a failure prints the reason on error_unit and stops the program (error stop), as
!>    Fortran I/O without iostat does.  With it, nothing is printed; dg_last_error says why.
!>  - The derived types mirror the C structs with bind(C); always start from
!>    dg_default_options and dg_delphi_default_control.
!>  - dg_delphi_itit and dg_delphi_nitit are the DelPhi-convention entry points: DelPhi data
!>    exactly as its itit and nitit receive it, plus the COMMON values in dg_delphi_control
!>    (delphi_compat.h says what they do, and what they leave in db, sf1, sf2 and qval).
module delphi_gpu
  use, intrinsic :: iso_c_binding, only: c_bool, c_char, c_double, c_f_pointer, c_float, &
                                         c_funptr, c_int, c_loc, c_long, c_null_char, &
                                         c_null_ptr, c_ptr, c_size_t, c_associated
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

#include "delphi_gpu_constants.inc"
#include "delphi_gpu_types.inc"
#include "delphi_gpu_interfaces.inc"

  !> Length of the message buffers handed to the C library.
  integer, parameter :: MESSAGE_BUFFER_LENGTH = 1024

  ! Constants.
  public :: DG_VERSION_MAJOR, DG_VERSION_MINOR, DG_VERSION_PATCH, DG_OPTIONS_VERSION
  public :: DG_DELPHI_CONTROL_VERSION, DG_MIN_GRID_SIZE, DG_DELPHI_GPU_MIN_POINTS
  public :: DG_DELPHI_NOTICE_LENGTH, DG_DELPHI_MESSAGE_LENGTH
  public :: DG_OK, DG_ERR_INVALID_ARGUMENT, DG_ERR_INVALID_GRID, DG_ERR_NONFINITE_INPUT
  public :: DG_ERR_INDEX_OUT_OF_RANGE, DG_ERR_WRONG_PARITY, DG_ERR_COUNT_MISMATCH
  public :: DG_ERR_BAD_PERMITTIVITY, DG_ERR_BAD_OMEGA, DG_ERR_BACKEND_NOT_BUILT
  public :: DG_ERR_NO_DEVICE, DG_ERR_DEVICE, DG_ERR_OUT_OF_MEMORY, DG_ERR_DEVICE_OUT_OF_MEMORY
  public :: DG_ERR_STATE, DG_ERR_UNSUPPORTED, DG_ERR_INTERNAL, DG_STATUS_COUNT
  public :: DG_BACKEND_AUTO, DG_BACKEND_CPU, DG_BACKEND_CUDA
  public :: DG_PRECISION_DOUBLE, DG_PRECISION_FLOAT, DG_PRECISION_MIXED
  public :: DG_PERIODIC_X, DG_PERIODIC_Y, DG_PERIODIC_Z
  public :: DG_SOLVER_SOR, DG_SOLVER_MULTIGRID, DG_SOLVER_AUTO, DG_NONLINEAR_DELPHI, DG_NONLINEAR_NEWTON
  public :: DG_NONLINEAR_TERM_AUTO, DG_NONLINEAR_TERM_POLYNOMIAL, DG_NONLINEAR_TERM_EXACT
  public :: DG_EQUATION_AUTO, DG_EQUATION_LINEAR, DG_EQUATION_NONLINEAR_PB
  public :: DG_INDEX_DELPHI_HALF, DG_INDEX_FULL
  public :: DG_SALT_NONE, DG_SALT_PER_POINT, DG_SALT_FLAG
  public :: DG_OUTCOME_CONVERGED, DG_OUTCOME_COMPLETED, DG_OUTCOME_NOT_CONVERGED
  public :: DG_OUTCOME_DIVERGED, DG_OUTCOME_STOPPED, DG_OUTCOME_FLOAT_RESOLUTION
  public :: DG_PHASE_LINEAR, DG_PHASE_NONLINEAR

  ! Types.
  public :: dg_solver, dg_options, dg_progress, dg_result, dg_salt, dg_sparse_counts
  public :: dg_sparse_medium_f, dg_sparse_medium_d, dg_dense_medium_f, dg_dense_medium_d
  public :: dg_delphi_control, dg_delphi_report

  ! Procedures (generic names, then the kind-specific names).
  public :: dg_version_string, dg_status_string, dg_outcome_string, dg_backend_built
  public :: dg_begin_cuda_start, dg_wait_cuda_start
  public :: dg_delphi_begin_warm_up, dg_delphi_wait_warm_up, dg_delphi_last_call_seconds
  public :: dg_delphi_last_call_parts
  public :: dg_cuda_device_count, dg_default_options, dg_create, dg_destroy, dg_last_error
  public :: dg_notice, dg_solver_choice, dg_set_options, dg_get_options, dg_get_backend, dg_c_handle
  public :: dg_set_sparse_medium, dg_set_dense_medium, dg_sparse_counts_of
  public :: dg_sparse_from_dense, dg_estimate_spectral_radius, dg_estimate_iterations
  public :: dg_solve, dg_delphi_default_control, dg_delphi_itit, dg_delphi_nitit
  public :: dg_c_chars_to_string, dg_c_ptr_to_string
  public :: dg_set_sparse_medium_f, dg_set_sparse_medium_d
  public :: dg_set_dense_medium_f, dg_set_dense_medium_d
  public :: dg_sparse_counts_f, dg_sparse_counts_d
  public :: dg_sparse_from_dense_f, dg_sparse_from_dense_d
  public :: dg_solve_f, dg_solve_d, dg_solve_f3, dg_solve_d3
  public :: dg_debye_huckel_faces, dg_debye_huckel_faces_f, dg_debye_huckel_faces_d
  public :: dg_delphi_itit_f, dg_delphi_itit_d, dg_delphi_nitit_f, dg_delphi_nitit_d

  interface dg_set_sparse_medium
    module procedure dg_set_sparse_medium_f, dg_set_sparse_medium_d
  end interface dg_set_sparse_medium
  interface dg_set_dense_medium
    module procedure dg_set_dense_medium_f, dg_set_dense_medium_d
  end interface dg_set_dense_medium
  !> dg_sparse_counts is the name of the counts type, so the generic is dg_sparse_counts_of.
  interface dg_sparse_counts_of
    module procedure dg_sparse_counts_f, dg_sparse_counts_d
  end interface dg_sparse_counts_of
  interface dg_sparse_from_dense
    module procedure dg_sparse_from_dense_f, dg_sparse_from_dense_d
  end interface dg_sparse_from_dense
  interface dg_solve
    module procedure dg_solve_f, dg_solve_d, dg_solve_f3, dg_solve_d3
  end interface dg_solve
  interface dg_debye_huckel_faces
    module procedure dg_debye_huckel_faces_f, dg_debye_huckel_faces_d
  end interface dg_debye_huckel_faces
  interface dg_delphi_itit
    module procedure dg_delphi_itit_f, dg_delphi_itit_d
  end interface dg_delphi_itit
  interface dg_delphi_nitit
    module procedure dg_delphi_nitit_f, dg_delphi_nitit_d
  end interface dg_delphi_nitit

contains

  ! ---- strings and status ---------------------------------------------------------------

  !> A NUL-terminated C string (NULL gives "") as a Fortran string.
  function string_from_c(text) result(string)
    type(c_ptr), intent(in) :: text
    character(len=:), allocatable :: string
    character(kind=c_char), pointer :: chars(:)
    integer :: length, i
    if (.not. c_associated(text)) then
      string = ''
      return
    end if
    length = int(c_strlen(text))
    call c_f_pointer(text, chars, [length])
    allocate (character(len=length) :: string)
    do i = 1, length
      string(i:i) = chars(i)
    end do
  end function string_from_c

  !> A NUL-terminated C string (a type(c_ptr) from C; NULL gives "") as a Fortran string.
  function dg_c_ptr_to_string(text) result(string)
    type(c_ptr), intent(in) :: text
    character(len=:), allocatable :: string
    string = string_from_c(text)
  end function dg_c_ptr_to_string

  !> A NUL-terminated character array (as in dg_delphi_report) as a Fortran string.
  function dg_c_chars_to_string(chars) result(string)
    character(kind=c_char), intent(in) :: chars(:)
    character(len=:), allocatable :: string
    integer :: length, i
    length = size(chars)
    do i = 1, size(chars)
      if (chars(i) == c_null_char) then
        length = i - 1
        exit
      end if
    end do
    allocate (character(len=length) :: string)
    do i = 1, length
      string(i:i) = chars(i)
    end do
  end function dg_c_chars_to_string

  !> Hand st to status, or stop with the message when the caller gave no status.
  subroutine finish(st, where, status, detail)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: where, detail
    integer, intent(out), optional :: status
    if (present(status)) then
      status = int(st)
    else if (st /= DG_OK) then
      write (error_unit, '(a)') 'delphi_gpu: ' // where // ' failed (' // &
        string_from_c(c_dg_status_string(st)) // '): ' // detail
      error stop 1
    end if
  end subroutine finish

  !> finish for calls on a handle: the detail is the handle's last error.
  subroutine finish_solver(st, solver, where, status)
    integer(c_int), intent(in) :: st
    type(dg_solver), intent(in) :: solver
    character(len=*), intent(in) :: where
    integer, intent(out), optional :: status
    if (st == DG_OK .or. present(status)) then
      call finish(st, where, status, '')
    else
      call finish(st, where, status, string_from_c(c_dg_last_error(solver%handle)))
    end if
  end subroutine finish_solver

  ! ---- library information ----------------------------------------------------------------

  !> "major.minor.patch" of the library linked in.
  function dg_version_string() result(version)
    character(len=:), allocatable :: version
    version = string_from_c(c_dg_version_string())
  end function dg_version_string

  !> Short text of a status code.
  function dg_status_string(status) result(text)
    integer, intent(in) :: status
    character(len=:), allocatable :: text
    text = string_from_c(c_dg_status_string(int(status, c_int)))
  end function dg_status_string

  !> Short text of an outcome (dg_result%outcome).
  function dg_outcome_string(outcome) result(text)
    integer, intent(in) :: outcome
    character(len=:), allocatable :: text
    text = string_from_c(c_dg_outcome_string(int(outcome, c_int)))
  end function dg_outcome_string

  !> .true. if this build of the library contains the backend.
  logical function dg_backend_built(backend)
    integer, intent(in) :: backend
    dg_backend_built = c_dg_backend_built(int(backend, c_int)) /= 0
  end function dg_backend_built

  !> Number of usable CUDA devices.  In a build without CUDA, count is 0 and status (when
  !> given) DG_ERR_BACKEND_NOT_BUILT; without status that case does not stop the program.
  subroutine dg_cuda_device_count(count, status)
    integer, intent(out) :: count
    integer, intent(out), optional :: status
    integer(c_int) :: n, st
    st = c_dg_cuda_device_count(n)
    count = int(n)
    if (st == DG_ERR_BACKEND_NOT_BUILT .and. .not. present(status)) return
    call finish(st, 'dg_cuda_device_count', status, '')
  end subroutine dg_cuda_device_count

  !> Begin CUDA's start-up for device on a background thread (see dg_begin_cuda_start in
  !> delphi_gpu.h).  Without status, a failure (also DG_ERR_BACKEND_NOT_BUILT) stops the program.
  subroutine dg_begin_cuda_start(device, status)
    integer, intent(in) :: device
    integer, intent(out), optional :: status
    call finish(c_dg_begin_cuda_start(int(device, c_int)), 'dg_begin_cuda_start', status, '')
  end subroutine dg_begin_cuda_start

  !> Wait for a start-up begun by dg_begin_cuda_start (returns at once when none was begun).
  subroutine dg_wait_cuda_start()
    call c_dg_wait_cuda_start()
  end subroutine dg_wait_cuda_start

  !> Begin the DelPhi entry points' warm-up on device on a background thread (see
  !> dg_delphi_begin_warm_up in delphi_compat.h).  Without status, a failure (also
  !> DG_ERR_BACKEND_NOT_BUILT) stops the program.
  subroutine dg_delphi_begin_warm_up(device, status)
    integer, intent(in) :: device
    integer, intent(out), optional :: status
    call finish(c_dg_delphi_begin_warm_up(int(device, c_int)), 'dg_delphi_begin_warm_up', &
                status, '')
  end subroutine dg_delphi_begin_warm_up

  !> Wait for a warm-up begun by dg_delphi_begin_warm_up (returns at once when none was begun).
  subroutine dg_delphi_wait_warm_up()
    call c_dg_delphi_wait_warm_up()
  end subroutine dg_delphi_wait_warm_up

  !> Wall seconds of the latest dg_delphi_itit/dg_delphi_nitit call of this thread: the whole call
  !> and its iteration loop (zeros before the first call).
  subroutine dg_delphi_last_call_seconds(call, loop)
    real(c_double), intent(out) :: call, loop
    call c_dg_delphi_last_call_seconds(call, loop)
  end subroutine dg_delphi_last_call_seconds

  !> The parts of the latest dg_delphi_itit/dg_delphi_nitit call of this thread, as text (seconds).
  function dg_delphi_last_call_parts() result(text)
    character(len=:), allocatable :: text
    text = string_from_c(c_dg_delphi_last_call_parts())
  end function dg_delphi_last_call_parts

  !> The default options (documented in delphi_gpu_types.h).
  subroutine dg_default_options(options)
    type(dg_options), intent(out) :: options
    call c_dg_default_options(options)
  end subroutine dg_default_options

  ! ---- handle -------------------------------------------------------------------------------

  !> Create a solver (options absent = defaults).  On failure the handle still exists when
  !> status is given, so dg_last_error can say why; always dg_destroy it.
  subroutine dg_create(solver, options, status)
    type(dg_solver), intent(out) :: solver
    type(dg_options), intent(in), optional, target :: options
    integer, intent(out), optional :: status
    type(c_ptr) :: options_ptr
    options_ptr = c_null_ptr
    if (present(options)) options_ptr = c_loc(options)
    call finish_solver(c_dg_create(solver%handle, options_ptr), solver, 'dg_create', status)
  end subroutine dg_create

  !> Free the solver; the handle is then null (destroying a null handle does nothing).
  subroutine dg_destroy(solver)
    type(dg_solver), intent(inout) :: solver
    call c_dg_destroy(solver%handle)
    solver%handle = c_null_ptr
  end subroutine dg_destroy

  !> The message of the last failure on this handle ("" after a success).
  function dg_last_error(solver) result(message)
    type(dg_solver), intent(in) :: solver
    character(len=:), allocatable :: message
    message = string_from_c(c_dg_last_error(solver%handle))
  end function dg_last_error

  !> The informational notice of the last call ("" if none), e.g. the CPU fallback of AUTO.
  function dg_notice(solver) result(notice)
    type(dg_solver), intent(in) :: solver
    character(len=:), allocatable :: notice
    notice = string_from_c(c_dg_notice(solver%handle))
  end function dg_notice

  !> Which linear solver the latest solve ran and why ("" before the first solve).
  function dg_solver_choice(solver) result(choice)
    type(dg_solver), intent(in) :: solver
    character(len=:), allocatable :: choice
    choice = string_from_c(c_dg_solver_choice(solver%handle))
  end function dg_solver_choice

  !> The C handle, to call C functions of the library directly.
  function dg_c_handle(solver) result(handle)
    type(dg_solver), intent(in) :: solver
    type(c_ptr) :: handle
    handle = solver%handle
  end function dg_c_handle

  !> Replace the iteration, stopping, relaxation and progress options.
  subroutine dg_set_options(solver, options, status)
    type(dg_solver), intent(in) :: solver
    type(dg_options), intent(in) :: options
    integer, intent(out), optional :: status
    call finish_solver(c_dg_set_options(solver%handle, options), solver, 'dg_set_options', &
                       status)
  end subroutine dg_set_options

  !> The options in force (backend resolved to the one in use).
  subroutine dg_get_options(solver, options, status)
    type(dg_solver), intent(in) :: solver
    type(dg_options), intent(out) :: options
    integer, intent(out), optional :: status
    call finish_solver(c_dg_get_options(solver%handle, options), solver, 'dg_get_options', &
                       status)
  end subroutine dg_get_options

  !> The backend in use: DG_BACKEND_CPU or DG_BACKEND_CUDA.
  subroutine dg_get_backend(solver, backend, status)
    type(dg_solver), intent(in) :: solver
    integer, intent(out) :: backend
    integer, intent(out), optional :: status
    integer(c_int) :: b
    b = DG_BACKEND_AUTO
    call finish_solver(c_dg_get_backend(solver%handle, b), solver, 'dg_get_backend', status)
    backend = int(b)
  end subroutine dg_get_backend

  ! ---- spectral radius and iteration estimate ------------------------------------------------

  !> Gauss-Seidel spectral radius of the current medium (as DelPhi relfac, in double).
  subroutine dg_estimate_spectral_radius(solver, spectral_radius, status)
    type(dg_solver), intent(in) :: solver
    real(c_double), intent(out) :: spectral_radius
    integer, intent(out), optional :: status
    call finish_solver(c_dg_estimate_spectral_radius(solver%handle, spectral_radius), solver, &
                       'dg_estimate_spectral_radius', status)
  end subroutine dg_estimate_spectral_radius

  !> DelPhi iteration estimate int(7.8 / ln(1 + sqrt(1 - spectral_radius))).
  integer function dg_estimate_iterations(spectral_radius)
    real(c_double), intent(in) :: spectral_radius
    dg_estimate_iterations = int(c_dg_estimate_iterations(spectral_radius))
  end function dg_estimate_iterations

  ! ---- DelPhi-convention entry points ----------------------------------------------------------

  !> The default control values (documented in delphi_compat.h); set igrid, nlit and the
  !> COMMON values of the run.
  subroutine dg_delphi_default_control(control)
    type(dg_delphi_control), intent(out) :: control
    call c_dg_delphi_default_control(control)
  end subroutine dg_delphi_default_control

  ! ---- kind-specific wrappers --------------------------------------------------------------------
#include "delphi_gpu_kind_f.inc"
#include "delphi_gpu_real.inc"
#include "delphi_gpu_kind_undef.inc"
#include "delphi_gpu_kind_d.inc"
#include "delphi_gpu_real.inc"
#include "delphi_gpu_kind_undef.inc"

end module delphi_gpu
