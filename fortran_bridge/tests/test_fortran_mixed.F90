!> Mixed precision through the Fortran module: a dielectric cube with two charges (no salt),
!> solved with a max-change criterion of 1e-9, far below float's resolution, in double, mixed
!> and float (real*8 arrays).  Mixed converges in the double run's iteration count (within one
!> check interval) to the double potential (within 1e-6 kT/e); float ends with
!> DG_OUTCOME_FLOAT_RESOLUTION.
program test_fortran_mixed
  use, intrinsic :: iso_c_binding
  use delphi_gpu
  use test_checks
  implicit none
  integer, parameter :: n = 21
  real(c_double), allocatable, target :: eps_x(:, :, :), eps_y(:, :, :), eps_z(:, :, :)
  real(c_double), allocatable, target :: charge(:, :, :)
  real(c_double), allocatable :: phi_double(:, :, :), phi_mixed(:, :, :), phi_float(:, :, :)
  type(dg_dense_medium_d) :: dense
  type(dg_result) :: r_double, r_mixed, r_float

  allocate (eps_x(n, n, n), eps_y(n, n, n), eps_z(n, n, n), charge(n, n, n))
  eps_x = 80
  eps_y = 80
  eps_z = 80
  eps_x(8:13, 8:14, 8:14) = 2
  eps_y(8:14, 8:13, 8:14) = 2
  eps_z(8:14, 8:14, 8:13) = 2
  charge = 0
  charge(11, 11, 11) = 1
  charge(10, 12, 11) = -0.5
  dense%nx = n
  dense%ny = n
  dense%nz = n
  dense%scale = 2
  dense%temperature = 0
  dense%eps_x = c_loc(eps_x)
  dense%eps_y = c_loc(eps_y)
  dense%eps_z = c_loc(eps_z)
  dense%medium_x = c_null_ptr
  dense%medium_y = c_null_ptr
  dense%medium_z = c_null_ptr
  dense%medium_epsilon = c_null_ptr
  dense%medium_count = 0
  dense%charge = c_loc(charge)
  dense%charge_list_index = c_null_ptr
  dense%charge_list_value = c_null_ptr
  dense%charge_list_count = 0
  dense%ion_accessible = c_null_ptr
  dense%salts = c_null_ptr
  dense%salt_count = 0
  dense%epsilon_solvent = 80

  allocate (phi_double(n, n, n), phi_mixed(n, n, n), phi_float(n, n, n))
  call solve(DG_PRECISION_DOUBLE, phi_double, r_double)
  call solve(DG_PRECISION_MIXED, phi_mixed, r_mixed)
  call solve(DG_PRECISION_FLOAT, phi_float, r_float)
  print '(a, 3(1x, i0), a, es10.3)', 'iterations double, mixed, float:', r_double%iterations, &
    r_mixed%iterations, r_float%iterations, '; max |mixed - double| ', &
    maxval(abs(phi_mixed - phi_double))
  call expect(r_double%outcome == DG_OUTCOME_CONVERGED, 'double converges')
  call expect(r_mixed%outcome == DG_OUTCOME_CONVERGED .and. &
              r_mixed%precision == DG_PRECISION_MIXED, 'mixed converges')
  call expect(abs(r_mixed%iterations - r_double%iterations) <= 10, &
              'mixed needs the double iteration count')
  call expect(maxval(abs(phi_mixed - phi_double)) <= 1d-6, 'mixed gives the double potential')
  call expect(r_float%outcome == DG_OUTCOME_FLOAT_RESOLUTION, &
              'float stops at its resolution: ' // dg_outcome_string(r_float%outcome))
  deallocate (eps_x, eps_y, eps_z, charge, phi_double, phi_mixed, phi_float)
  call report_checks('Fortran mixed precision OK')

contains

  subroutine solve(precision, phi, result)
    integer(c_int), intent(in) :: precision
    real(c_double), intent(out) :: phi(n, n, n)
    type(dg_result), intent(out) :: result
    type(dg_options) :: options
    type(dg_solver) :: solver
    integer :: status
    call dg_default_options(options)
    options%backend = DG_BACKEND_CPU
    options%precision = precision
    options%max_change_tol = 1d-9
    phi = 0
    call dg_create(solver, options, status)
    call expect(status == DG_OK, 'dg_create: ' // dg_last_error(solver))
    call dg_set_dense_medium(solver, dense)
    call dg_solve(solver, phi, result, status)
    call expect(status == DG_OK, 'dg_solve')
    call dg_destroy(solver)
  end subroutine solve

end program test_fortran_mixed
