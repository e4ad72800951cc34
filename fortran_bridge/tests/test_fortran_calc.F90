!> The calculation layer from Fortran (module delphi_gpu_calc): a Born ion against the analytic
!> solvation energy, the potential map against the interpolated potentials, site(r) and site(c)
!> against the energies, induced charges against Gauss's law, reaction forces summing to zero,
!> medium maps, new positions and charges on the same handle, a pair's binding, focusing from a
!> coarse map, and shapes or states that do not fit refused with a message naming them.
!> DELPHI_GPU_TEST_BACKEND=cuda runs it on the GPU (default: the CPU).
module calc_test_progress
  use, intrinsic :: iso_c_binding, only: c_double, c_ptr
  implicit none
  integer, save :: stage_calls = 0
contains
  subroutine count_stage(stage, fraction, user_data) bind(C)
    type(c_ptr), value :: stage
    real(c_double), value :: fraction
    type(c_ptr), value :: user_data
    stage_calls = stage_calls + 1
  end subroutine count_stage
end module calc_test_progress

program test_fortran_calc
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_is_nan
  use delphi_gpu
  use delphi_gpu_calc
  use test_checks
  use calc_test_progress
  implicit none
  real(c_double), parameter :: temperature = 297.3342d0
  real(c_double), parameter :: epkt = 166804.4928d0 / temperature
  !> Born: -(epkt / 2) q^2 / a (1 / eps_in - 1 / eps_out), q = 1, a = 2, eps 1 and 80.
  real(c_double), parameter :: born = -(epkt / 2d0) / 2d0 * (1d0 - 1d0 / 80d0)
  integer :: backend

  backend = test_backend()
  call check_born()
  call check_pair()
  call check_focusing()
  call check_refusals()
  call report_checks('Fortran calculation layer OK')

contains

  integer function test_backend()
    character(len=16) :: value
    integer :: length, stat
    call get_environment_variable('DELPHI_GPU_TEST_BACKEND', value, length, stat)
    test_backend = DG_BACKEND_CPU
    if (stat == 0 .and. value == 'cuda') test_backend = DG_BACKEND_CUDA
  end function test_backend

  !> The Born ion's parameters: scale 4, perfil 20, eps 1 / 80, Coulombic boundary values.
  subroutine born_params(params)
    type(dg_calc_params), intent(out) :: params
    call dg_calc_default_params(params)
    params%scale = 4d0
    params%perfil = 20d0
    params%epsilon_in = 1d0
    params%epsilon_out = 80d0
    params%boundary = DG_BOUNDARY_COULOMBIC
    params%energies = ior(DG_ENERGY_GRID, DG_ENERGY_REACTION_FIELD)
    params%solver%max_change_tol = 1d-5
    params%solver%backend = backend
  end subroutine born_params

  logical function close_to(got, want, relative)
    real(c_double), intent(in) :: got, want, relative
    close_to = abs(got - want) <= relative * abs(want)
  end function close_to

  subroutine check_born()
    type(dg_calc) :: calc
    type(dg_calc_params) :: params
    type(dg_calc_result) :: result
    type(dg_calc_grid) :: grid
    real(c_double) :: xyz(3, 1) = 0d0, q(1) = 1d0, r(1) = 2d0
    real(c_double), allocatable :: phi(:, :, :), at(:), points(:, :), where(:, :), sigma(:)
    real(c_float), allocatable :: phi32(:, :, :)
    integer(c_signed_char), allocatable :: solute(:, :, :, :), ions(:, :, :)
    integer :: n, i, j, k
    call born_params(params)
    params%stage_progress = c_funloc(count_stage)
    call dg_calc_create(calc, params)
    call dg_calc_set_atoms(calc, xyz, q, r)
    call dg_calc_run(calc, result)
    call expect(result%solve%outcome == DG_OUTCOME_CONVERGED, 'Born: converged')
    call expect(result%backend == backend, 'Born: run on the backend asked for')
    call expect(result%grid%n == 81 .and. result%grid%scale == 4d0, 'Born: grid 81 at scale 4')
    call expect(close_to(result%energies%reaction_field, born, 5d-3), &
                'Born: corrected reaction field within 0.5 % of the analytic energy')
    call expect(abs(result%induced_charge - result%expected_induced_charge) < 1d-3, &
                'Born: induced charge by Gauss''s law')
    call expect(ieee_is_nan(result%energies%coulombic), 'Born: Coulombic energy not requested')
    call expect(stage_calls > 0, 'Born: stage progress called')
    call dg_calc_get_grid(calc, grid)
    n = grid%n
    allocate (phi(n, n, n), phi32(n, n, n))
    call dg_calc_potential(calc, phi)
    call dg_calc_potential(calc, phi32)
    call expect(maxval(abs(phi32 - phi)) <= 1d-6 * maxval(abs(phi)) + 1d-6, &
                'Born: float potential as the double one')
    ! At a grid point the interpolation gives the map's value (phi(i,j,k) lies at
    ! origin + (i - 1, j - 1, k - 1) / scale); outside the sphere q / (eps_out r).
    i = 41 + 8
    j = 41 - 3
    k = 41 + 1
    allocate (points(3, 5), at(5))
    points(:, 1) = grid%origin + [i - 1, j - 1, k - 1] / grid%scale
    points(:, 2) = [6d0, 0d0, 0d0]
    points(:, 3) = [0d0, -6d0, 0d0]
    points(:, 4) = [0d0, 0d0, 6d0]
    points(:, 5) = [1000d0, 0d0, 0d0]
    call dg_calc_potentials_at(calc, points, at)
    call expect(close_to(at(1), phi(i, j, k), 1d-12), 'Born: interpolation at a grid point')
    call expect(all(abs(at(2:4) - epkt / (80d0 * 6d0)) <= 0.03d0 * epkt / (80d0 * 6d0)), &
                'Born: potential outside the sphere within 3 %')
    call expect(ieee_is_nan(at(5)), 'Born: NaN outside the grid')
    ! site(r) at the ion: (1/2) q rp is the corrected energy.
    call dg_calc_reaction_potentials_at(calc, points(:, 1:1) * 0d0, at(1:1))
    call expect(close_to(0.5d0 * at(1), result%energies%reaction_field, 1d-12), &
                'Born: site(r) at the ion gives the reaction-field energy')
    ! The induced charges: one per boundary point, summing to the run's total.
    call dg_calc_induced_charges(calc, where, sigma)
    call expect(size(sigma) == result%boundary_points .and. size(where, 2) == size(sigma), &
                'Born: one induced charge per boundary point')
    call expect(close_to(sum(sigma), result%induced_charge, 1d-9), 'Born: induced charges'' sum')
    call expect(all(abs(sqrt(sum(where**2, dim=1)) - 2d0) < 0.5d0), &
                'Born: induced charges on the sphere')
    ! The medium: the ion's sphere in the solute maps, closed to ions near the ion.
    allocate (solute(n, n, n, 3), ions(n, n, n))
    call dg_calc_medium_maps(calc, solute, ions)
    call expect(solute(41, 41, 41, 1) == 1 .and. solute(1, 1, 1, 3) == 0, 'Born: solute map')
    call expect(ions(41, 41, 41) == 0 .and. ions(1, 1, 1) == 1, 'Born: ion map')
    call expect(len(dg_calc_last_error(calc)) == 0, 'Born: no error after a success')
    call dg_calc_destroy(calc)
  end subroutine check_born

  !> Two opposite charges: site(c) and the Coulombic energy, the reaction forces, new charges
  !> and new positions on the same handle.
  subroutine check_pair()
    type(dg_calc) :: calc
    type(dg_calc_params) :: params
    type(dg_calc_result) :: first, flipped, moved
    real(c_double) :: xyz(3, 2), q(2) = [1d0, -1d0], r(2) = [1.5d0, 1.5d0]
    real(c_double) :: cp(2), field(3, 2), force(3, 2), eps_in
    type(dg_calc_binding) :: binding
    real(c_double) :: parts(2)
    integer :: status
    call born_params(params)
    params%scale = 2d0
    params%perfil = 50d0
    params%epsilon_in = 2d0
    params%energies = ior(params%energies, DG_ENERGY_COULOMBIC)
    eps_in = params%epsilon_in
    xyz = 0d0
    xyz(1, 1) = -3d0
    xyz(1, 2) = 3d0
    call dg_calc_create(calc, params)
    call dg_calc_set_atoms(calc, xyz, q, r)
    call dg_calc_run(calc, first)
    call expect(first%solve%outcome == DG_OUTCOME_CONVERGED, 'pair: converged')
    call expect(close_to(first%energies%coulombic, -epkt / (eps_in * 6d0), 1d-12), &
                'pair: Coulombic energy')
    call dg_calc_coulombic_potentials_at(calc, xyz, cp)
    call expect(close_to(0.5d0 * sum(q * cp), first%energies%coulombic, 1d-12), &
                'pair: site(c) sums to the Coulombic energy')
    call dg_calc_coulombic_fields_at(calc, xyz, field)
    call expect(close_to(field(1, 1), epkt / (eps_in * 36d0), 1d-12), &
                'pair: Coulombic field at the first atom (towards the negative charge)')
    call dg_calc_reaction_forces(calc, force)
    call expect(all(abs(sum(force, dim=2)) <= 1d-9 * maxval(abs(force))), &
                'pair: reaction forces sum to zero')
    ! All charges flipped: the same energies (the solve is linear and odd in the charges).
    call dg_calc_set_charges(calc, -q)
    call dg_calc_run(calc, flipped)
    call expect(close_to(flipped%energies%reaction_field, first%energies%reaction_field, &
                         1d-12), 'pair: flipped charges, the same reaction-field energy')
    ! Moved by half a grid spacing: the grid stays, the energy nearly the same.
    call dg_calc_set_positions(calc, xyz + 0.25d0)
    call dg_calc_run(calc, moved)
    call expect(all(moved%grid%origin == first%grid%origin) .and. &
                moved%grid%n == first%grid%n, 'pair: new positions keep the grid')
    call expect(close_to(moved%energies%reaction_field, first%energies%reaction_field, &
                         0.05d0), 'pair: moved, the reaction-field energy within 5 %')
    ! The pair's binding: the Coulombic difference is the pair's energy, the handle ends with
    ! the complex's run, and a partner list of another length is refused.
    call dg_calc_set_positions(calc, xyz)
    call dg_calc_run_binding(calc, [0_c_int, 1_c_int], moved, binding, atom_energy=parts)
    call expect(abs(sum(parts) - binding%energy) <= 1d-9 * abs(binding%energy), &
                'binding: the atoms'' parts sum to the binding energy')
    call expect(close_to(binding%difference%coulombic, first%energies%coulombic, 1d-12), &
                'binding: the Coulombic difference is the pair''s Coulombic energy')
    call expect(binding%energy == binding%difference%coulombic + &
                binding%difference%reaction_field .and. binding%salt == 0d0, &
                'binding: energy = Coulombic + reaction field')
    call expect(close_to(binding%grid_energy, binding%energy, 0.05d0), &
                'binding: the grid energies'' difference within 5 %')
    call expect(binding%atoms(1) == 1 .and. binding%atoms(2) == 1 .and. &
                binding%net_charge(1) == -1d0 .and. binding%net_charge(2) == 1d0, &
                'binding: the partners (the flipped charges)')
    call expect(close_to(moved%energies%reaction_field, first%energies%reaction_field, &
                         1d-12), 'binding: the complex''s run as a plain one')
    call dg_calc_run_binding(calc, [0_c_int, 1_c_int, 1_c_int], moved, binding, status)
    call expect(status == DG_ERR_COUNT_MISMATCH .and. &
                index(dg_calc_last_error(calc), 'partner has 3 values; 2 atoms need 2') > 0, &
                'binding: a partner list for other atoms: ' // dg_calc_last_error(calc))
    call dg_calc_run_binding(calc, [0_c_int, 1_c_int], moved, binding, status, parts(1:1))
    call expect(status == DG_ERR_COUNT_MISMATCH .and. &
                index(dg_calc_last_error(calc), 'atom_energy has 1 values') > 0, &
                'binding: atom parts for other atoms: ' // dg_calc_last_error(calc))
    call dg_calc_run_binding(calc, [1_c_int, 1_c_int], moved, binding, status)
    call expect(status == DG_ERR_INVALID_ARGUMENT .and. &
                index(dg_calc_last_error(calc), 'partner 0 has no atoms') > 0, &
                'binding: an empty partner: ' // dg_calc_last_error(calc))
    call dg_calc_destroy(calc)
  end subroutine check_pair

  !> A coarse run's map as the boundary values of a finer one (DelPhi's focusing).
  subroutine check_focusing()
    type(dg_calc) :: coarse, fine
    type(dg_calc_params) :: params
    type(dg_calc_result) :: result
    type(dg_calc_grid) :: grid
    real(c_double) :: xyz(3, 1) = 0d0, q(1) = 1d0, r(1) = 2d0
    real(c_double), allocatable :: phi(:, :, :)
    call born_params(params)
    params%scale = 1d0
    call dg_calc_create(coarse, params)
    call dg_calc_set_atoms(coarse, xyz, q, r)
    call dg_calc_run(coarse, result)
    call dg_calc_get_grid(coarse, grid)
    allocate (phi(grid%n, grid%n, grid%n))
    call dg_calc_potential(coarse, phi)
    call born_params(params)
    params%scale = 4d0
    params%perfil = 50d0
    params%boundary = DG_BOUNDARY_FOCUSING
    call dg_calc_create(fine, params)
    call dg_calc_set_atoms(fine, xyz, q, r)
    call dg_calc_set_focus_map(fine, phi, grid%scale, grid%center)
    call dg_calc_run(fine, result)
    call expect(result%solve%outcome == DG_OUTCOME_CONVERGED, 'focusing: converged')
    call expect(close_to(result%energies%reaction_field, born, 1d-2), &
                'focusing: reaction field within 1 % of Born')
    call dg_calc_destroy(fine)
    call dg_calc_destroy(coarse)
  end subroutine check_focusing

  !> Shapes and states that do not fit: a status and a message naming them, nothing stopped.
  subroutine check_refusals()
    type(dg_calc) :: calc
    type(dg_calc_params) :: params
    real(c_double) :: xyz(3, 1) = 0d0, q(1) = 1d0, r(1) = 2d0, bad(2, 3) = 0d0
    real(c_double) :: two(2), phi(5, 5, 5)
    integer :: status
    call born_params(params)
    params%epsilon_in = -1d0
    call dg_calc_create(calc, params, status)
    call expect(status == DG_ERR_INVALID_ARGUMENT .or. status == DG_ERR_BAD_PERMITTIVITY, &
                'refusal: negative epsilon_in')
    call expect(index(dg_calc_last_error(calc), 'epsilon_in') > 0, &
                'refusal: the message names epsilon_in: ' // dg_calc_last_error(calc))
    call dg_calc_destroy(calc)
    call born_params(params)
    call dg_calc_create(calc, params)
    call dg_calc_set_positions(calc, xyz, status)
    call expect(status == DG_ERR_STATE .and. &
                index(dg_calc_last_error(calc), 'no atoms set') > 0, 'refusal: positions first')
    call dg_calc_set_atoms(calc, bad, [1d0, 1d0, 1d0], [1d0, 1d0, 1d0], status)
    call expect(status == DG_ERR_COUNT_MISMATCH .and. &
                index(dg_calc_last_error(calc), 'position must be (3, count), not 2 x 3') > 0, &
                'refusal: positions of 2 rows: ' // dg_calc_last_error(calc))
    call dg_calc_set_atoms(calc, xyz, [1d0, 2d0], r, status)
    call expect(status == DG_ERR_COUNT_MISMATCH .and. &
                index(dg_calc_last_error(calc), '1 positions, 2 charges, 1 radii') > 0, &
                'refusal: charges of another count: ' // dg_calc_last_error(calc))
    call dg_calc_set_atoms(calc, xyz, q, r)
    call dg_calc_set_charges(calc, two, status)
    call expect(status == DG_ERR_COUNT_MISMATCH .and. &
                index(dg_calc_last_error(calc), 'charge has 2 values; 1 atoms need 1') > 0, &
                'refusal: charges for other atoms: ' // dg_calc_last_error(calc))
    call dg_calc_potential(calc, phi, status)
    call expect(status == DG_ERR_COUNT_MISMATCH .and. &
                index(dg_calc_last_error(calc), 'phi is 5 x 5 x 5; the grid is 81') > 0, &
                'refusal: a map of another size: ' // dg_calc_last_error(calc))
    call dg_calc_reaction_potentials_at(calc, xyz, two(1:1), status)
    call expect(status == DG_ERR_STATE .and. len(dg_calc_last_error(calc)) > 0, &
                'refusal: site(r) before a run: ' // dg_calc_last_error(calc))
    call dg_calc_destroy(calc)
  end subroutine check_refusals

end program test_fortran_calc
