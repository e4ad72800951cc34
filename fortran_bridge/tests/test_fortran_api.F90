!> Every wrapper of the Fortran module once: library information, options, handle life cycle,
!> errors through the optional status, dense and sparse media in both kinds, the sparse form of
!> a dense medium, spectral radius and iteration estimate, solve with a rank-3 phimap, progress.
module api_test_progress
  use, intrinsic :: iso_c_binding, only: c_int, c_ptr
  use delphi_gpu, only: dg_progress
  implicit none
  integer, save :: calls = 0, last_iteration = -1
contains
  integer(c_int) function count_progress(progress, user_data) bind(C)
    type(dg_progress), intent(in) :: progress
    type(c_ptr), value :: user_data
    calls = calls + 1
    last_iteration = progress%iteration
    count_progress = 0
  end function count_progress
end module api_test_progress

program test_fortran_api
  use, intrinsic :: iso_c_binding
  use delphi_gpu
  use test_checks
  use api_test_progress
  implicit none
  integer, parameter :: n = 17

  call check_information()
  call check_options_and_errors()
  call check_dense_and_sparse_d()
  call check_dense_and_sparse_f()
  call check_debye_huckel_faces()
  call report_checks('Fortran API wrappers OK')

contains

  subroutine check_information()
    integer :: count, status, i
    call expect(len(dg_version_string()) >= 5, 'version string')
    call expect(dg_backend_built(DG_BACKEND_CPU), 'the CPU backend is always built')
    call dg_cuda_device_count(count, status)
    if (dg_backend_built(DG_BACKEND_CUDA)) then
      call expect(status == DG_OK, 'dg_cuda_device_count in a CUDA build')
    else
      call expect(status == DG_ERR_BACKEND_NOT_BUILT .and. count == 0, &
                  'dg_cuda_device_count without CUDA')
    end if
    call dg_cuda_device_count(count) ! never stops the program, CUDA or not
    call expect(count >= 0, 'dg_cuda_device_count without status')
    do i = DG_OUTCOME_CONVERGED, DG_OUTCOME_FLOAT_RESOLUTION
      call expect(len(dg_outcome_string(i)) > 0, 'outcome text')
    end do
    call expect(dg_estimate_iterations(0.99_c_double) == 81, 'iteration estimate for 0.99')
  end subroutine check_information

  subroutine check_options_and_errors()
    type(dg_options) :: options, got
    type(dg_solver) :: solver
    integer :: status, backend
    real(c_double) :: phi(n, n, n)
    call dg_default_options(options)
    options%check_interval = 0
    call dg_create(solver, options, status)
    call expect(status == DG_ERR_INVALID_ARGUMENT, 'bad check_interval rejected')
    call expect(index(dg_last_error(solver), 'check_interval') > 0, &
                'the message names check_interval: ' // dg_last_error(solver))
    call dg_destroy(solver)

    call dg_default_options(options)
    options%backend = DG_BACKEND_CPU
    options%max_change_tol = 1d-5
    call dg_create(solver, options, status)
    call expect(status == DG_OK, 'dg_create on the CPU')
    call dg_get_backend(solver, backend, status)
    call expect(status == DG_OK .and. backend == DG_BACKEND_CPU, 'dg_get_backend')
    call dg_get_options(solver, got, status)
    call expect(status == DG_OK .and. got%max_change_tol == 1d-5, 'dg_get_options')
    got%max_change_tol = 1d-6
    call dg_set_options(solver, got, status)
    call expect(status == DG_OK, 'dg_set_options with a new tolerance')
    got%precision = DG_PRECISION_FLOAT
    call dg_set_options(solver, got, status)
    call expect(status == DG_ERR_INVALID_ARGUMENT, 'dg_set_options cannot change precision')
    phi = 0
    call dg_solve(solver, phi, status=status)
    call expect(status == DG_ERR_STATE, 'solve before a medium is DG_ERR_STATE')
    call expect(len(dg_last_error(solver)) > 0, 'a message after a failure')
    call expect(len(dg_notice(solver)) == 0, 'no notice on the CPU backend')
    call dg_destroy(solver)
    call expect(.not. c_associated(dg_c_handle(solver)), 'dg_destroy nulls the handle')
  end subroutine check_options_and_errors

#define TK c_double
#define DENSE_T dg_dense_medium_d
#define SPARSE_T dg_sparse_medium_d
#define PRECISION_CODE DG_PRECISION_DOUBLE
#define TOLERANCE 1d-12
#define CHECK_DENSE_AND_SPARSE check_dense_and_sparse_d
#include "test_fortran_api_media.inc"
#undef TK
#undef DENSE_T
#undef SPARSE_T
#undef PRECISION_CODE
#undef TOLERANCE
#undef CHECK_DENSE_AND_SPARSE

#define TK c_float
#define DENSE_T dg_dense_medium_f
#define SPARSE_T dg_sparse_medium_f
#define PRECISION_CODE DG_PRECISION_FLOAT
#define TOLERANCE 1d-5
#define CHECK_DENSE_AND_SPARSE check_dense_and_sparse_f
#include "test_fortran_api_media.inc"

  !> Boundary values of one charge: the corner (0,0,0) holds coefficient * q / r, the interior
  !> is untouched, both kinds; bad input returns a status with a message.
  subroutine check_debye_huckel_faces()
    real(c_double) :: positions(3, 1), charges(1), r
    real(c_double) :: phi_d(n, n, n)
    real(c_float) :: phi_f(n, n, n)
    type(dg_options) :: options
    character(len=256) :: message
    integer :: status
    positions(:, 1) = [7.5_c_double, 8.0_c_double, 6.0_c_double]
    charges(1) = 2.0_c_double
    call dg_default_options(options)
    options%backend = DG_BACKEND_CPU
    phi_d = -1.0_c_double
    phi_f = -1.0_c_float
    call dg_debye_huckel_faces_d(n, n, n, positions, charges, 3.0_c_double, 0.0_c_double, &
                                 phi_d, options, message, status)
    call expect(status == DG_OK, 'dg_debye_huckel_faces_d: ' // trim(message))
    call dg_debye_huckel_faces_f(n, n, n, positions, charges, 3.0_c_double, 0.0_c_double, &
                                 phi_f, options, status=status)
    call expect(status == DG_OK, 'dg_debye_huckel_faces (float)')
    r = sqrt(sum(positions(:, 1)**2))
    call expect(abs(phi_d(1, 1, 1) - 3.0_c_double * 2.0_c_double / r) < 1e-12_c_double, &
                'corner value of dg_debye_huckel_faces_d')
    call expect(abs(phi_f(n, 1, 1) - real(phi_d(n, 1, 1), c_float)) == 0.0_c_float, &
                'float faces are the rounded double ones')
    call expect(phi_d(2, 2, 2) == -1.0_c_double .and. phi_f(n / 2, n / 2, n / 2) == -1.0_c_float, &
                'interior untouched')
    charges(1) = ieee_nan()
    call dg_debye_huckel_faces_d(n, n, n, positions, charges, 3.0_c_double, 0.0_c_double, &
                                 phi_d, options, message, status)
    call expect(status == DG_ERR_NONFINITE_INPUT .and. index(message, 'charge 0') > 0, &
                'NaN charge rejected: ' // trim(message))
  end subroutine check_debye_huckel_faces

  real(c_double) function ieee_nan()
    use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
    ieee_nan = ieee_value(1.0_c_double, ieee_quiet_nan)
  end function ieee_nan

end program test_fortran_api
