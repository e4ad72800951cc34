!> The Fortran mirror of the C API cannot drift: every bind(C) type has the size and field
!> offsets the C compiler gives the struct (mirror_probe.c), every constant the C value.
program test_fortran_mirror
  use, intrinsic :: iso_c_binding
  use delphi_gpu
  use delphi_gpu_calc
  implicit none

  interface
    integer(c_int) function probe_struct(which, size, offsets, capacity) bind(C)
      import :: c_int, c_long
      integer(c_int), value :: which, capacity
      integer(c_long), intent(out) :: size, offsets(*)
    end function probe_struct
    integer(c_int) function probe_constants(values, capacity) bind(C)
      import :: c_int
      integer(c_int), intent(out) :: values(*)
      integer(c_int), value :: capacity
    end function probe_constants
    integer(c_int) function probe_calc_constants(values, capacity) bind(C)
      import :: c_int
      integer(c_int), intent(out) :: values(*)
      integer(c_int), value :: capacity
    end function probe_calc_constants
  end interface

  type(dg_options), target :: opt
  type(dg_progress), target :: prog
  type(dg_result), target :: res
  type(dg_sparse_medium_f), target :: smf
  type(dg_sparse_medium_d), target :: smd
  type(dg_dense_medium_f), target :: dmf
  type(dg_dense_medium_d), target :: dmd
  type(dg_salt), target :: salt
  type(dg_sparse_counts), target :: counts
  type(dg_delphi_control), target :: ctl
  type(dg_delphi_report), target :: rep
  type(dg_calc_params), target :: cpar
  type(dg_atoms), target :: atoms
  type(dg_calc_grid), target :: grid
  type(dg_calc_energies), target :: energies
  type(dg_calc_timing), target :: timing
  type(dg_calc_result), target :: cres
  type(dg_calc_binding), target :: cbind
  integer :: failures = 0

  call check_struct(1, 'dg_options', c_sizeof(opt), [ &
    at(c_loc(opt%struct_size)), at(c_loc(opt%version)), at(c_loc(opt%backend)), &
    at(c_loc(opt%precision)), at(c_loc(opt%device)), at(c_loc(opt%num_threads)), &
    at(c_loc(opt%block_x)), at(c_loc(opt%block_y)), at(c_loc(opt%autotune)), &
    at(c_loc(opt%equation)), at(c_loc(opt%omega)), at(c_loc(opt%spectral_radius)), &
    at(c_loc(opt%iterations)), at(c_loc(opt%run_until_converged)), &
    at(c_loc(opt%max_iterations)), at(c_loc(opt%check_interval)), &
    at(c_loc(opt%check_stride)), at(c_loc(opt%rms_change_tol)), &
    at(c_loc(opt%max_change_tol)), at(c_loc(opt%norm_change_tol)), &
    at(c_loc(opt%nonlinear_blocks)), at(c_loc(opt%relpar)), at(c_loc(opt%qfact)), &
    at(c_loc(opt%divergence_checks)), at(c_loc(opt%divergence_factor)), &
    at(c_loc(opt%progress)), at(c_loc(opt%progress_user_data)), &
    at(c_loc(opt%solver)), at(c_loc(opt%nonlinear_method)), at(c_loc(opt%nonlinear_term)), &
    at(c_loc(opt%mpi_comm)), at(c_loc(opt%periodic))] - at(c_loc(opt)))

  call check_struct(2, 'dg_progress', c_sizeof(prog), [ &
    at(c_loc(prog%iteration)), at(c_loc(prog%phase)), at(c_loc(prog%nonlinear_block)), &
    at(c_loc(prog%max_change)), at(c_loc(prog%rms_change)), at(c_loc(prog%norm_change)), &
    at(c_loc(prog%omega)), at(c_loc(prog%estimated_total)), &
    at(c_loc(prog%elapsed_seconds)), at(c_loc(prog%solver))] - at(c_loc(prog)))

  call check_struct(3, 'dg_result', c_sizeof(res), [ &
    at(c_loc(res%outcome)), at(c_loc(res%iterations)), at(c_loc(res%linear_iterations)), &
    at(c_loc(res%nonlinear_blocks)), at(c_loc(res%checks)), at(c_loc(res%max_change)), &
    at(c_loc(res%rms_change)), at(c_loc(res%norm_change)), at(c_loc(res%spectral_radius)), &
    at(c_loc(res%omega)), at(c_loc(res%final_relpar)), &
    at(c_loc(res%estimated_iterations)), at(c_loc(res%backend)), at(c_loc(res%precision)), &
    at(c_loc(res%equation)), at(c_loc(res%setup_seconds)), at(c_loc(res%solve_seconds)), &
    at(c_loc(res%total_seconds)), at(c_loc(res%solver))] - at(c_loc(res)))

  call check_struct(4, 'dg_sparse_medium_f', c_sizeof(smf), [ &
    at(c_loc(smf%nx)), at(c_loc(smf%ny)), at(c_loc(smf%nz)), at(c_loc(smf%index_kind)), &
    at(c_loc(smf%boundary_count_odd)), at(c_loc(smf%boundary_count)), &
    at(c_loc(smf%boundary_index)), at(c_loc(smf%boundary_weights)), &
    at(c_loc(smf%charge_count_odd)), at(c_loc(smf%charge_count)), &
    at(c_loc(smf%charge_index)), at(c_loc(smf%charge_source)), at(c_loc(smf%salt_model)), &
    at(c_loc(smf%salt_factor_odd)), at(c_loc(smf%salt_factor_even)), &
    at(c_loc(smf%solvent_flag)), at(c_loc(smf%salt_factor)), &
    at(c_loc(smf%nonlinear_coefficient)), at(c_loc(smf%chi))] - at(c_loc(smf)))

  call check_struct(5, 'dg_sparse_medium_d', c_sizeof(smd), [ &
    at(c_loc(smd%nx)), at(c_loc(smd%ny)), at(c_loc(smd%nz)), at(c_loc(smd%index_kind)), &
    at(c_loc(smd%boundary_count_odd)), at(c_loc(smd%boundary_count)), &
    at(c_loc(smd%boundary_index)), at(c_loc(smd%boundary_weights)), &
    at(c_loc(smd%charge_count_odd)), at(c_loc(smd%charge_count)), &
    at(c_loc(smd%charge_index)), at(c_loc(smd%charge_source)), at(c_loc(smd%salt_model)), &
    at(c_loc(smd%salt_factor_odd)), at(c_loc(smd%salt_factor_even)), &
    at(c_loc(smd%solvent_flag)), at(c_loc(smd%salt_factor)), &
    at(c_loc(smd%nonlinear_coefficient)), at(c_loc(smd%chi))] - at(c_loc(smd)))

  call check_struct(6, 'dg_dense_medium_f', c_sizeof(dmf), [ &
    at(c_loc(dmf%nx)), at(c_loc(dmf%ny)), at(c_loc(dmf%nz)), at(c_loc(dmf%scale)), &
    at(c_loc(dmf%temperature)), at(c_loc(dmf%eps_x)), at(c_loc(dmf%eps_y)), &
    at(c_loc(dmf%eps_z)), at(c_loc(dmf%medium_x)), at(c_loc(dmf%medium_y)), &
    at(c_loc(dmf%medium_z)), at(c_loc(dmf%medium_epsilon)), at(c_loc(dmf%medium_count)), &
    at(c_loc(dmf%charge)), at(c_loc(dmf%charge_list_index)), &
    at(c_loc(dmf%charge_list_value)), at(c_loc(dmf%charge_list_count)), &
    at(c_loc(dmf%ion_accessible)), at(c_loc(dmf%salts)), at(c_loc(dmf%salt_count)), &
    at(c_loc(dmf%epsilon_solvent))] - at(c_loc(dmf)))

  call check_struct(7, 'dg_dense_medium_d', c_sizeof(dmd), [ &
    at(c_loc(dmd%nx)), at(c_loc(dmd%ny)), at(c_loc(dmd%nz)), at(c_loc(dmd%scale)), &
    at(c_loc(dmd%temperature)), at(c_loc(dmd%eps_x)), at(c_loc(dmd%eps_y)), &
    at(c_loc(dmd%eps_z)), at(c_loc(dmd%medium_x)), at(c_loc(dmd%medium_y)), &
    at(c_loc(dmd%medium_z)), at(c_loc(dmd%medium_epsilon)), at(c_loc(dmd%medium_count)), &
    at(c_loc(dmd%charge)), at(c_loc(dmd%charge_list_index)), &
    at(c_loc(dmd%charge_list_value)), at(c_loc(dmd%charge_list_count)), &
    at(c_loc(dmd%ion_accessible)), at(c_loc(dmd%salts)), at(c_loc(dmd%salt_count)), &
    at(c_loc(dmd%epsilon_solvent))] - at(c_loc(dmd)))

  call check_struct(8, 'dg_salt', c_sizeof(salt), [ &
    at(c_loc(salt%concentration)), at(c_loc(salt%cation_valence)), &
    at(c_loc(salt%anion_valence))] - at(c_loc(salt)))

  call check_struct(9, 'dg_sparse_counts', c_sizeof(counts), [ &
    at(c_loc(counts%boundary_count_odd)), at(c_loc(counts%boundary_count)), &
    at(c_loc(counts%charge_count_odd)), at(c_loc(counts%charge_count)), &
    at(c_loc(counts%charges_not_interior))] - at(c_loc(counts)))

  call check_struct(10, 'dg_delphi_control', c_sizeof(ctl), [ &
    at(c_loc(ctl%struct_size)), at(c_loc(ctl%version)), at(c_loc(ctl%igrid)), &
    at(c_loc(ctl%nlit)), at(c_loc(ctl%nonit)), at(c_loc(ctl%icon1)), at(c_loc(ctl%icon2)), &
    at(c_loc(ctl%automatic)), at(c_loc(ctl%manual_relpar)), at(c_loc(ctl%periodic)), &
    at(c_loc(ctl%diff)), at(c_loc(ctl%chebyshev)), at(c_loc(ctl%ionic_strength)), &
    at(c_loc(ctl%rmsc)), at(c_loc(ctl%maxc)), at(c_loc(ctl%normc)), at(c_loc(ctl%gten)), &
    at(c_loc(ctl%epsout)), at(c_loc(ctl%deblen)), at(c_loc(ctl%scale)), &
    at(c_loc(ctl%chi)), at(c_loc(ctl%relpar)), at(c_loc(ctl%backend)), &
    at(c_loc(ctl%device)), at(c_loc(ctl%num_threads)), at(c_loc(ctl%progress)), &
    at(c_loc(ctl%progress_user_data)), at(c_loc(ctl%mixed_precision)), &
    at(c_loc(ctl%gpu_min_points))] - at(c_loc(ctl)))

  call check_struct(11, 'dg_delphi_report', c_sizeof(rep), [ &
    at(c_loc(rep%result)), at(c_loc(rep%nlit)), at(c_loc(rep%icon1)), &
    at(c_loc(rep%relpar)), at(c_loc(rep%omega)), at(c_loc(rep%notice)), &
    at(c_loc(rep%message))] - at(c_loc(rep)))

  call check_struct(12, 'dg_calc_params', c_sizeof(cpar), [ &
    at(c_loc(cpar%struct_size)), at(c_loc(cpar%version)), at(c_loc(cpar%scale)), &
    at(c_loc(cpar%perfil)), at(c_loc(cpar%grid_size)), at(c_loc(cpar%center_mode)), &
    at(c_loc(cpar%center)), at(c_loc(cpar%epsilon_in)), at(c_loc(cpar%epsilon_out)), &
    at(c_loc(cpar%probe_radius)), at(c_loc(cpar%ion_radius)), at(c_loc(cpar%surface)), &
    at(c_loc(cpar%temperature)), at(c_loc(cpar%salts)), at(c_loc(cpar%salt_count)), &
    at(c_loc(cpar%boundary)), at(c_loc(cpar%energies)), at(c_loc(cpar%solvation_two_run)), &
    at(c_loc(cpar%solver)), at(c_loc(cpar%stage_progress)), &
    at(c_loc(cpar%stage_progress_user_data)), at(c_loc(cpar%coarse_scale)), &
    at(c_loc(cpar%coarse_perfil))] - at(c_loc(cpar)))

  call check_struct(13, 'dg_atoms', c_sizeof(atoms), [ &
    at(c_loc(atoms%count)), at(c_loc(atoms%position)), at(c_loc(atoms%charge)), &
    at(c_loc(atoms%radius))] - at(c_loc(atoms)))

  call check_struct(14, 'dg_calc_grid', c_sizeof(grid), [ &
    at(c_loc(grid%n)), at(c_loc(grid%scale)), at(c_loc(grid%center)), &
    at(c_loc(grid%origin))] - at(c_loc(grid)))

  call check_struct(15, 'dg_calc_energies', c_sizeof(energies), [ &
    at(c_loc(energies%grid)), at(c_loc(energies%coulombic)), &
    at(c_loc(energies%reaction_field)), at(c_loc(energies%self_reaction)), &
    at(c_loc(energies%total_reaction_field)), at(c_loc(energies%ionic_rho_phi)), &
    at(c_loc(energies%ionic_osmotic)), at(c_loc(energies%ionic_total)), &
    at(c_loc(energies%grid_reference)), at(c_loc(energies%solvation_two_run))] - &
    at(c_loc(energies)))

  call check_struct(16, 'dg_calc_timing', c_sizeof(timing), [ &
    at(c_loc(timing%grid)), at(c_loc(timing%surface)), at(c_loc(timing%medium)), &
    at(c_loc(timing%charges)), at(c_loc(timing%boundary)), at(c_loc(timing%solve)), &
    at(c_loc(timing%energies)), at(c_loc(timing%reference)), at(c_loc(timing%coarse)), &
    at(c_loc(timing%total))] - &
    at(c_loc(timing)))

  call check_struct(17, 'dg_calc_result', c_sizeof(cres), [ &
    at(c_loc(cres%grid)), at(c_loc(cres%solve)), at(c_loc(cres%reference_solve)), &
    at(c_loc(cres%energies)), at(c_loc(cres%timing)), at(c_loc(cres%boundary_points)), &
    at(c_loc(cres%charged_points)), at(c_loc(cres%induced_charge)), &
    at(c_loc(cres%expected_induced_charge)), at(c_loc(cres%atoms_outside)), &
    at(c_loc(cres%sites_outside)), at(c_loc(cres%backend)), at(c_loc(cres%coarse_grid)), &
    at(c_loc(cres%coarse_solve))] - at(c_loc(cres)))

  call check_struct(18, 'dg_calc_binding', c_sizeof(cbind), [ &
    at(c_loc(cbind%atoms)), at(c_loc(cbind%net_charge)), at(c_loc(cbind%energy)), &
    at(c_loc(cbind%salt)), at(c_loc(cbind%salt_share)), at(c_loc(cbind%grid_energy)), &
    at(c_loc(cbind%bound)), at(c_loc(cbind%partner)), at(c_loc(cbind%difference)), &
    at(c_loc(cbind%solve)), at(c_loc(cbind%reference_solve)), &
    at(c_loc(cbind%salt_free_solve)), at(c_loc(cbind%timing)), &
    at(c_loc(cbind%coarse_solve)), at(c_loc(cbind%coarse_salt_free_solve))] - at(c_loc(cbind)))

  call check_constants()
  call check_calc_constants()
  call check_defaults()

  if (failures > 0) then
    write (*, '(i0, a)') failures, ' mismatch(es) between the Fortran mirror and the C library'
    error stop 1
  end if
  write (*, '(a)') 'Fortran mirror matches the C library'

contains

  integer(c_long) function at(p)
    type(c_ptr), intent(in) :: p
    at = int(transfer(p, 0_c_intptr_t), c_long)
  end function at

  subroutine check_struct(which, name, fortran_size, fortran_offsets)
    integer, intent(in) :: which
    character(len=*), intent(in) :: name
    integer(c_size_t), intent(in) :: fortran_size
    integer(c_long), intent(in) :: fortran_offsets(:)
    integer(c_long) :: c_size, c_offsets(64)
    integer(c_int) :: n
    integer :: i
    n = probe_struct(int(which, c_int), c_size, c_offsets, int(size(c_offsets), c_int))
    if (n /= size(fortran_offsets)) then
      write (*, '(a, a, i0, a, i0)') name, ': C has ', n, ' fields, Fortran ', &
        size(fortran_offsets)
      failures = failures + 1
      return
    end if
    if (c_size /= fortran_size) then
      write (*, '(a, a, i0, a, i0)') name, ': sizeof is ', c_size, ' in C, c_sizeof ', &
        fortran_size
      failures = failures + 1
    end if
    do i = 1, n
      if (c_offsets(i) /= fortran_offsets(i)) then
        write (*, '(a, a, i0, a, i0, a, i0)') name, ': field ', i, ' at offset ', &
          c_offsets(i), ' in C, ', fortran_offsets(i)
        failures = failures + 1
      end if
    end do
  end subroutine check_struct

  subroutine check_constants()
    integer(c_int), parameter :: fortran_values(*) = [ &
      DG_VERSION_MAJOR, DG_VERSION_MINOR, DG_VERSION_PATCH, DG_OPTIONS_VERSION, &
      DG_DELPHI_CONTROL_VERSION, DG_MIN_GRID_SIZE, DG_DELPHI_NOTICE_LENGTH, &
      DG_DELPHI_MESSAGE_LENGTH, &
      DG_OK, DG_ERR_INVALID_ARGUMENT, DG_ERR_INVALID_GRID, DG_ERR_NONFINITE_INPUT, &
      DG_ERR_INDEX_OUT_OF_RANGE, DG_ERR_WRONG_PARITY, DG_ERR_COUNT_MISMATCH, &
      DG_ERR_BAD_PERMITTIVITY, DG_ERR_BAD_OMEGA, DG_ERR_BACKEND_NOT_BUILT, DG_ERR_NO_DEVICE, &
      DG_ERR_DEVICE, DG_ERR_OUT_OF_MEMORY, DG_ERR_DEVICE_OUT_OF_MEMORY, DG_ERR_STATE, &
      DG_ERR_UNSUPPORTED, DG_ERR_INTERNAL, DG_STATUS_COUNT, &
      DG_BACKEND_AUTO, DG_BACKEND_CPU, DG_BACKEND_CUDA, &
      DG_PRECISION_DOUBLE, DG_PRECISION_FLOAT, DG_PRECISION_MIXED, &
      DG_PERIODIC_X, DG_PERIODIC_Y, DG_PERIODIC_Z, &
      DG_SOLVER_SOR, DG_SOLVER_MULTIGRID, DG_SOLVER_AUTO, DG_NONLINEAR_DELPHI, DG_NONLINEAR_NEWTON, &
      DG_NONLINEAR_TERM_AUTO, DG_NONLINEAR_TERM_POLYNOMIAL, DG_NONLINEAR_TERM_EXACT, &
      DG_EQUATION_AUTO, DG_EQUATION_LINEAR, DG_EQUATION_NONLINEAR_PB, &
      DG_INDEX_DELPHI_HALF, DG_INDEX_FULL, &
      DG_SALT_NONE, DG_SALT_PER_POINT, DG_SALT_FLAG, &
      DG_OUTCOME_CONVERGED, DG_OUTCOME_COMPLETED, DG_OUTCOME_NOT_CONVERGED, &
      DG_OUTCOME_DIVERGED, DG_OUTCOME_STOPPED, DG_OUTCOME_FLOAT_RESOLUTION, &
      DG_PHASE_LINEAR, DG_PHASE_NONLINEAR, DG_DELPHI_GPU_MIN_POINTS]
    integer(c_int) :: c_values(128), n
    integer :: i
    n = probe_constants(c_values, int(size(c_values), c_int))
    if (n /= size(fortran_values)) then
      write (*, '(a, i0, a, i0)') 'constants: C lists ', n, ', Fortran ', size(fortran_values)
      failures = failures + 1
      return
    end if
    do i = 1, n
      if (c_values(i) /= fortran_values(i)) then
        write (*, '(a, i0, a, i0, a, i0)') 'constant ', i, ' is ', c_values(i), ' in C, ', &
          fortran_values(i)
        failures = failures + 1
      end if
    end do
    ! The status codes are dense 0..DG_STATUS_COUNT-1 and each has its own text.
    do i = 0, DG_STATUS_COUNT - 1
      if (len(dg_status_string(i)) == 0) then
        write (*, '(a, i0)') 'no status text for ', i
        failures = failures + 1
      end if
    end do
  end subroutine check_constants

  !> The calculation layer's constants (module delphi_gpu_calc) equal the C values.
  subroutine check_calc_constants()
    integer(c_int), parameter :: fortran_values(*) = [ &
      DG_CALC_PARAMS_VERSION, DG_BOUNDARY_ZERO, DG_BOUNDARY_DIPOLAR, DG_BOUNDARY_FOCUSING, &
      DG_BOUNDARY_COULOMBIC, DG_SURFACE_MOLECULAR, DG_SURFACE_VDW, DG_CENTER_BOX, &
      DG_CENTER_ABSOLUTE, DG_CENTER_OFFSET, DG_ENERGY_GRID, DG_ENERGY_COULOMBIC, &
      DG_ENERGY_REACTION_FIELD, DG_ENERGY_IONIC]
    integer(c_int) :: c_values(32), n
    integer :: i
    n = probe_calc_constants(c_values, int(size(c_values), c_int))
    if (n /= size(fortran_values)) then
      write (*, '(a, i0, a, i0)') 'calc constants: C lists ', n, ', Fortran ', &
        size(fortran_values)
      failures = failures + 1
      return
    end if
    do i = 1, n
      if (c_values(i) /= fortran_values(i)) then
        write (*, '(a, i0, a, i0, a, i0)') 'calc constant ', i, ' is ', c_values(i), &
          ' in C, ', fortran_values(i)
        failures = failures + 1
      end if
    end do
  end subroutine check_calc_constants

  !> Defaults through the wrappers carry the layout stamps the C library checks.
  subroutine check_defaults()
    type(dg_options) :: o
    type(dg_delphi_control) :: c
    character(len=32) :: expected
    type(dg_calc_params) :: p
    call dg_default_options(o)
    call dg_delphi_default_control(c)
    call dg_calc_default_params(p)
    if (p%struct_size /= c_sizeof(p) .or. p%version /= DG_CALC_PARAMS_VERSION .or. &
        p%solver%struct_size /= c_sizeof(o)) then
      write (*, '(a)') 'dg_calc_default_params: struct_size/version do not match the mirror'
      failures = failures + 1
    end if
    if (o%struct_size /= c_sizeof(o) .or. o%version /= DG_OPTIONS_VERSION) then
      write (*, '(a)') 'dg_default_options: struct_size/version do not match the mirror'
      failures = failures + 1
    end if
    if (c%struct_size /= c_sizeof(c) .or. c%version /= DG_DELPHI_CONTROL_VERSION) then
      write (*, '(a)') 'dg_delphi_default_control: struct_size/version do not match'
      failures = failures + 1
    end if
    write (expected, '(i0, ".", i0, ".", i0)') DG_VERSION_MAJOR, DG_VERSION_MINOR, &
      DG_VERSION_PATCH
    if (dg_version_string() /= trim(expected)) then
      write (*, '(4a)') 'version string ', dg_version_string(), ' expected ', trim(expected)
      failures = failures + 1
    end if
  end subroutine check_defaults

end program test_fortran_mirror
