!> delphi_gpu_calc: Fortran 2008 interface to the calculation layer of delphi-gpu
!> (delphi_gpu_calc.h): atoms in; the grid, surface, medium, boundary values, solve, energies
!> and potentials out, on the CPU or the GPU.
!>
!>   use delphi_gpu_calc
!>   type(dg_calc) :: calc
!>   type(dg_calc_params) :: params
!>   type(dg_calc_result) :: result
!>   call dg_calc_default_params(params)            ! DelPhi's defaults
!>   params%salt_count = 1
!>   params%salts(1)%concentration = 0.15d0
!>   params%energies = ior(DG_ENERGY_GRID, DG_ENERGY_REACTION_FIELD)
!>   call dg_calc_create(calc, params)
!>   call dg_calc_set_atoms(calc, xyz, charge, radius)  ! xyz(3, n), charge(n), radius(n)
!>   call dg_calc_run(calc, result)
!>   print *, result%energies%reaction_field          ! kT
!>   call dg_calc_potential(calc, phi)               ! phi(n, n, n), x fastest like phimap
!>   call dg_calc_destroy(calc)
!>
!> Conventions as in module delphi_gpu: units of DelPhi (Angstrom, e, kT/e, kT); grids x
!> fastest; every wrapper has an optional status (without it a failure prints the reason and
!> stops the program; with it nothing is printed and dg_calc_last_error says why); the types
!> are bind(C) mirrors of the C structs (test_fortran_mirror checks them), started from
!> dg_calc_default_params.  Array arguments are assumed-shape and their shapes are checked
!> against the calculation (a mismatch is DG_ERR_COUNT_MISMATCH with a message naming the
!> argument).  Positions and points are (3, count) arrays: x, y, z of each in a column.
module delphi_gpu_calc
  use, intrinsic :: iso_c_binding, only: c_double, c_float, c_funptr, c_int, c_loc, c_long, &
                                         c_null_funptr, c_null_ptr, c_ptr, c_signed_char
  use, intrinsic :: iso_fortran_env, only: error_unit
  use delphi_gpu, only: dg_options, dg_result, dg_salt, dg_status_string, dg_c_ptr_to_string, &
                        DG_OK, DG_ERR_COUNT_MISMATCH, DG_ERR_STATE
  implicit none
  private

  !> Version of the dg_calc_params layout (DG_CALC_PARAMS_VERSION).
  integer(c_int), parameter :: DG_CALC_PARAMS_VERSION = 2
  !> Boundary conditions (DelPhi bndcon), dg_calc_params%boundary.
  integer(c_int), parameter :: DG_BOUNDARY_ZERO = 1, DG_BOUNDARY_DIPOLAR = 2, &
                               DG_BOUNDARY_FOCUSING = 3, DG_BOUNDARY_COULOMBIC = 4
  !> Dielectric surface, dg_calc_params%surface.
  integer(c_int), parameter :: DG_SURFACE_MOLECULAR = 0, DG_SURFACE_VDW = 1
  !> Where the grid centre goes, dg_calc_params%center_mode.
  integer(c_int), parameter :: DG_CENTER_BOX = 0, DG_CENTER_ABSOLUTE = 1, DG_CENTER_OFFSET = 2
  !> Energy terms (bits of dg_calc_params%energies).
  integer(c_int), parameter :: DG_ENERGY_GRID = 1, DG_ENERGY_COULOMBIC = 2, &
                               DG_ENERGY_REACTION_FIELD = 4, DG_ENERGY_IONIC = 8

  !> Physics parameters (delphi_gpu_calc.h documents every field); start from
  !> dg_calc_default_params.  stage_progress: c_funloc of a subroutine
  !>   subroutine f(stage, fraction, user_data) bind(C)
  !>     type(c_ptr), value :: stage;  real(c_double), value :: fraction
  !>     type(c_ptr), value :: user_data
  !> (stage a NUL-terminated C string: dg_c_ptr_to_string(stage)).
  type, bind(C) :: dg_calc_params
    integer(c_int) :: struct_size, version
    real(c_double) :: scale, perfil
    integer(c_int) :: grid_size, center_mode
    real(c_double) :: center(3)
    real(c_double) :: epsilon_in, epsilon_out, probe_radius, ion_radius
    integer(c_int) :: surface
    real(c_double) :: temperature
    type(dg_salt) :: salts(2)
    integer(c_int) :: salt_count, boundary, energies, solvation_two_run
    type(dg_options) :: solver
    type(c_funptr) :: stage_progress = c_null_funptr
    type(c_ptr) :: stage_progress_user_data = c_null_ptr
    !> Focusing in one run: the coarse grid's scale, or the percent of it the molecule fills
    real(c_double) :: coarse_scale, coarse_perfil
  end type dg_calc_params

  !> The atoms as the C library takes them (dg_calc_set_atoms builds it from arrays).
  type, bind(C) :: dg_atoms
    integer(c_long) :: count
    type(c_ptr) :: position, charge, radius
  end type dg_atoms

  !> The grid of a calculation: n points per axis, scale (points per Angstrom), its middle
  !> point and the position of point (1,1,1) in Fortran's numbering (Angstrom).
  type, bind(C) :: dg_calc_grid
    integer(c_int) :: n
    real(c_double) :: scale, center(3), origin(3)
  end type dg_calc_grid

  !> Energies in kT; NaN when not requested or not applicable.
  type, bind(C) :: dg_calc_energies
    real(c_double) :: grid, coulombic, reaction_field, self_reaction, total_reaction_field
    real(c_double) :: ionic_rho_phi, ionic_osmotic, ionic_total, grid_reference
    real(c_double) :: solvation_two_run
  end type dg_calc_energies

  !> Stage timings (wall seconds) of the last run.
  type, bind(C) :: dg_calc_timing
    real(c_double) :: grid, surface, medium, charges, boundary, solve, energies, reference
    real(c_double) :: coarse, total
  end type dg_calc_timing

  !> Everything one run produced (the potential itself: dg_calc_potential).
  type, bind(C) :: dg_calc_result
    type(dg_calc_grid) :: grid
    type(dg_result) :: solve, reference_solve
    type(dg_calc_energies) :: energies
    type(dg_calc_timing) :: timing
    integer(c_long) :: boundary_points, charged_points
    real(c_double) :: induced_charge, expected_induced_charge
    integer(c_long) :: atoms_outside, sites_outside
    integer(c_int) :: backend
    type(dg_calc_grid) :: coarse_grid  !< focusing in one run; n = 0 without
    type(dg_result) :: coarse_solve
  end type dg_calc_result

  !> The electrostatic binding of two partners (dg_calc_run_binding), kT: energy = the
  !> Coulombic and corrected reaction-field differences (complex - partner 0 - partner 1) plus
  !> salt, the salt's part; grid_energy the grid energies' difference (DelPhi's one-grid
  !> recipe); salt_share: complex, partner 0, partner 1.
  type, bind(C) :: dg_calc_binding
    integer(c_long) :: atoms(2)
    real(c_double) :: net_charge(2), energy, salt, salt_share(3), grid_energy
    type(dg_calc_energies) :: bound, partner(2), difference
    type(dg_result) :: solve(2), reference_solve(2), salt_free_solve(3)
    type(dg_calc_timing) :: timing(2)
    type(dg_result) :: coarse_solve(2), coarse_salt_free_solve(3)
  end type dg_calc_binding

  !> A calculation: the C handle, the atom count and the wrapper's own last error.
  type :: dg_calc
    type(c_ptr) :: handle = c_null_ptr
    integer :: atom_count = 0
    character(len=:), allocatable :: wrapper_error
  end type dg_calc

  public :: DG_CALC_PARAMS_VERSION, DG_BOUNDARY_ZERO, DG_BOUNDARY_DIPOLAR, DG_BOUNDARY_FOCUSING
  public :: DG_BOUNDARY_COULOMBIC, DG_SURFACE_MOLECULAR, DG_SURFACE_VDW, DG_CENTER_BOX
  public :: DG_CENTER_ABSOLUTE, DG_CENTER_OFFSET, DG_ENERGY_GRID, DG_ENERGY_COULOMBIC
  public :: DG_ENERGY_REACTION_FIELD, DG_ENERGY_IONIC
  public :: dg_calc, dg_calc_params, dg_atoms, dg_calc_grid, dg_calc_energies, dg_calc_timing
  public :: dg_calc_result, dg_calc_binding
  public :: dg_calc_default_params, dg_calc_create, dg_calc_set_params, dg_calc_destroy
  public :: dg_calc_last_error, dg_calc_notes, dg_calc_set_atoms, dg_calc_set_positions
  public :: dg_calc_set_charges, dg_calc_set_focus_map, dg_calc_run, dg_calc_get_grid
  public :: dg_calc_run_binding
  public :: dg_calc_potential, dg_calc_potential_f, dg_calc_potential_d
  public :: dg_calc_potentials_at, dg_calc_reaction_potentials_at
  public :: dg_calc_coulombic_potentials_at, dg_calc_coulombic_fields_at
  public :: dg_calc_reaction_forces, dg_calc_induced_charges, dg_calc_medium_maps

  !> The last run's potential, phi(n, n, n) (x fastest, faces included), real(c_float) or
  !> real(c_double).
  interface dg_calc_potential
    module procedure dg_calc_potential_f, dg_calc_potential_d
  end interface dg_calc_potential

  !> The signature of the functions of points: dg_calc_potentials_at,
  !> dg_calc_reaction_potentials_at, dg_calc_coulombic_potentials_at and
  !> dg_calc_coulombic_fields_at (values: 1 or 3 per point).
  abstract interface
    function c_points_function(calc, points, count, values) bind(C) result(st)
      import :: c_double, c_int, c_long, c_ptr
      type(c_ptr), value :: calc
      real(c_double), intent(in) :: points(*)
      integer(c_long), value :: count
      real(c_double), intent(out) :: values(*)
      integer(c_int) :: st
    end function c_points_function
  end interface
  procedure(c_points_function), bind(C, name='dg_calc_potentials_at') :: &
    c_dg_calc_potentials_at
  procedure(c_points_function), bind(C, name='dg_calc_reaction_potentials_at') :: &
    c_dg_calc_reaction_potentials_at
  procedure(c_points_function), bind(C, name='dg_calc_coulombic_potentials_at') :: &
    c_dg_calc_coulombic_potentials_at
  procedure(c_points_function), bind(C, name='dg_calc_coulombic_fields_at') :: &
    c_dg_calc_coulombic_fields_at

  interface
    subroutine c_dg_calc_default_params(params) bind(C, name='dg_calc_default_params')
      import :: dg_calc_params
      type(dg_calc_params), intent(out) :: params
    end subroutine c_dg_calc_default_params

    function c_dg_calc_create(calc, params) bind(C, name='dg_calc_create') result(st)
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: calc
      type(c_ptr), value :: params
      integer(c_int) :: st
    end function c_dg_calc_create

    function c_dg_calc_set_params(calc, params) bind(C, name='dg_calc_set_params') result(st)
      import :: c_int, c_ptr, dg_calc_params
      type(c_ptr), value :: calc
      type(dg_calc_params), intent(in) :: params
      integer(c_int) :: st
    end function c_dg_calc_set_params

    subroutine c_dg_calc_destroy(calc) bind(C, name='dg_calc_destroy')
      import :: c_ptr
      type(c_ptr), value :: calc
    end subroutine c_dg_calc_destroy

    function c_dg_calc_last_error(calc) bind(C, name='dg_calc_last_error') result(text)
      import :: c_ptr
      type(c_ptr), value :: calc
      type(c_ptr) :: text
    end function c_dg_calc_last_error

    function c_dg_calc_notes(calc) bind(C, name='dg_calc_notes') result(text)
      import :: c_ptr
      type(c_ptr), value :: calc
      type(c_ptr) :: text
    end function c_dg_calc_notes

    function c_dg_calc_set_atoms(calc, atoms) bind(C, name='dg_calc_set_atoms') result(st)
      import :: c_int, c_ptr, dg_atoms
      type(c_ptr), value :: calc
      type(dg_atoms), intent(in) :: atoms
      integer(c_int) :: st
    end function c_dg_calc_set_atoms

    function c_dg_calc_set_positions(calc, position) bind(C, name='dg_calc_set_positions') &
        result(st)
      import :: c_double, c_int, c_ptr
      type(c_ptr), value :: calc
      real(c_double), intent(in) :: position(*)
      integer(c_int) :: st
    end function c_dg_calc_set_positions

    function c_dg_calc_set_charges(calc, charge) bind(C, name='dg_calc_set_charges') result(st)
      import :: c_double, c_int, c_ptr
      type(c_ptr), value :: calc
      real(c_double), intent(in) :: charge(*)
      integer(c_int) :: st
    end function c_dg_calc_set_charges

    function c_dg_calc_set_focus_map(calc, phi, n, scale, center) &
        bind(C, name='dg_calc_set_focus_map') result(st)
      import :: c_double, c_int, c_ptr
      type(c_ptr), value :: calc
      real(c_double), intent(in) :: phi(*)
      integer(c_int), value :: n
      real(c_double), value :: scale
      real(c_double), intent(in) :: center(3)
      integer(c_int) :: st
    end function c_dg_calc_set_focus_map

    function c_dg_calc_run(calc, result) bind(C, name='dg_calc_run') result(st)
      import :: c_int, c_ptr, dg_calc_result
      type(c_ptr), value :: calc
      type(dg_calc_result), intent(out) :: result
      integer(c_int) :: st
    end function c_dg_calc_run

    function c_dg_calc_run_binding(calc, partner, result, binding, atom_energy) &
      bind(C, name='dg_calc_run_binding') result(st)
      import :: c_int, c_ptr, dg_calc_result, dg_calc_binding
      type(c_ptr), value :: calc
      integer(c_int), intent(in) :: partner(*)
      type(dg_calc_result), intent(out) :: result
      type(dg_calc_binding), intent(out) :: binding
      type(c_ptr), value :: atom_energy
      integer(c_int) :: st
    end function c_dg_calc_run_binding

    function c_dg_calc_get_grid(calc, grid) bind(C, name='dg_calc_get_grid') result(st)
      import :: c_int, c_ptr, dg_calc_grid
      type(c_ptr), value :: calc
      type(dg_calc_grid), intent(out) :: grid
      integer(c_int) :: st
    end function c_dg_calc_get_grid

    function c_dg_calc_potential_f(calc, phi) bind(C, name='dg_calc_potential_f') result(st)
      import :: c_float, c_int, c_ptr
      type(c_ptr), value :: calc
      real(c_float), intent(out) :: phi(*)
      integer(c_int) :: st
    end function c_dg_calc_potential_f

    function c_dg_calc_potential_d(calc, phi) bind(C, name='dg_calc_potential_d') result(st)
      import :: c_double, c_int, c_ptr
      type(c_ptr), value :: calc
      real(c_double), intent(out) :: phi(*)
      integer(c_int) :: st
    end function c_dg_calc_potential_d

    function c_dg_calc_reaction_forces(calc, force) bind(C, name='dg_calc_reaction_forces') &
        result(st)
      import :: c_double, c_int, c_ptr
      type(c_ptr), value :: calc
      real(c_double), intent(out) :: force(*)
      integer(c_int) :: st
    end function c_dg_calc_reaction_forces

    function c_dg_calc_induced_charges(calc, count, position, charge) &
        bind(C, name='dg_calc_induced_charges') result(st)
      import :: c_int, c_long, c_ptr
      type(c_ptr), value :: calc
      integer(c_long), intent(out) :: count
      type(c_ptr), value :: position, charge
      integer(c_int) :: st
    end function c_dg_calc_induced_charges

    function c_dg_calc_medium_maps(calc, solute, ion_accessible) &
        bind(C, name='dg_calc_medium_maps') result(st)
      import :: c_int, c_ptr
      type(c_ptr), value :: calc, solute, ion_accessible
      integer(c_int) :: st
    end function c_dg_calc_medium_maps
  end interface

contains

  ! ---- status ---------------------------------------------------------------------------------

  !> Hand st to status, or stop with the calculation's last error when no status was given.
  subroutine finish(st, calc, where, status)
    integer(c_int), intent(in) :: st
    type(dg_calc), intent(in) :: calc
    character(len=*), intent(in) :: where
    integer, intent(out), optional :: status
    if (present(status)) then
      status = int(st)
    else if (st /= DG_OK) then
      write (error_unit, '(a)') 'delphi_gpu_calc: ' // where // ' failed (' // &
        dg_status_string(int(st)) // '): ' // dg_calc_last_error(calc)
      error stop 1
    end if
  end subroutine finish

  !> A shape that does not fit the calculation: DG_ERR_COUNT_MISMATCH with the wrapper's
  !> message (kept for dg_calc_last_error).
  subroutine shape_error(calc, where, why, status)
    type(dg_calc), intent(inout) :: calc
    character(len=*), intent(in) :: where, why
    integer, intent(out), optional :: status
    calc%wrapper_error = where // ': ' // why
    call finish(DG_ERR_COUNT_MISMATCH, calc, where, status)
  end subroutine shape_error

  !> Points as (3, count): .false. (and the error handed on) when the first extent is not 3.
  logical function points_fit(calc, where, name, points, status)
    type(dg_calc), intent(inout) :: calc
    character(len=*), intent(in) :: where, name
    real(c_double), intent(in) :: points(:, :)
    integer, intent(out), optional :: status
    character(len=32) :: got
    points_fit = size(points, 1) == 3
    if (points_fit) return
    write (got, '(i0, " x ", i0)') size(points, 1), size(points, 2)
    call shape_error(calc, where, name // ' must be (3, count), not ' // trim(got), status)
  end function points_fit

  !> The grid edge n of the calculation's grid (0 when it has none yet).
  integer function grid_edge(calc)
    type(dg_calc), intent(in) :: calc
    type(dg_calc_grid) :: grid
    grid_edge = 0
    if (c_dg_calc_get_grid(calc%handle, grid) == DG_OK) grid_edge = int(grid%n)
  end function grid_edge

  ! ---- handle ---------------------------------------------------------------------------------

  !> DelPhi's defaults (delphi_gpu_calc.h); the solver part is dg_default_options'.
  subroutine dg_calc_default_params(params)
    type(dg_calc_params), intent(out) :: params
    call c_dg_calc_default_params(params)
  end subroutine dg_calc_default_params

  !> Create a calculation (params absent = defaults) and start its backend.  With status, the
  !> handle exists even after a failure, so that dg_calc_last_error can say why; always
  !> dg_calc_destroy it.
  subroutine dg_calc_create(calc, params, status)
    type(dg_calc), intent(out) :: calc
    type(dg_calc_params), intent(in), optional, target :: params
    integer, intent(out), optional :: status
    type(c_ptr) :: params_ptr
    params_ptr = c_null_ptr
    if (present(params)) params_ptr = c_loc(params)
    call finish(c_dg_calc_create(calc%handle, params_ptr), calc, 'dg_calc_create', status)
  end subroutine dg_calc_create

  !> New parameters for the same calculation (checked like dg_calc_create; the atoms stay).
  subroutine dg_calc_set_params(calc, params, status)
    type(dg_calc), intent(inout) :: calc
    type(dg_calc_params), intent(in) :: params
    integer, intent(out), optional :: status
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    call finish(c_dg_calc_set_params(calc%handle, params), calc, 'dg_calc_set_params', status)
  end subroutine dg_calc_set_params

  !> Free the calculation; the handle is then null (destroying a null one does nothing).
  subroutine dg_calc_destroy(calc)
    type(dg_calc), intent(inout) :: calc
    call c_dg_calc_destroy(calc%handle)
    calc%handle = c_null_ptr
    calc%atom_count = 0
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
  end subroutine dg_calc_destroy

  !> The message of the last failure ("" after a success).
  function dg_calc_last_error(calc) result(message)
    type(dg_calc), intent(in) :: calc
    character(len=:), allocatable :: message
    if (allocated(calc%wrapper_error)) then
      message = calc%wrapper_error
    else
      message = dg_c_ptr_to_string(c_dg_calc_last_error(calc%handle))
    end if
  end function dg_calc_last_error

  !> The notes of the last run, one per line ("" if none): adjustments and warnings a user
  !> should see, e.g. the CPU fallback of DG_BACKEND_AUTO.
  function dg_calc_notes(calc) result(notes)
    type(dg_calc), intent(in) :: calc
    character(len=:), allocatable :: notes
    notes = dg_c_ptr_to_string(c_dg_calc_notes(calc%handle))
  end function dg_calc_notes

  ! ---- atoms ----------------------------------------------------------------------------------

  !> Set the atoms (copied): position(3, n) in Angstrom, charge(n) in e, radius(n) in Angstrom
  !> (0 = a point charge).  Places the grid from them unless the parameters fix it.
  subroutine dg_calc_set_atoms(calc, position, charge, radius, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), intent(in), contiguous, target :: position(:, :), charge(:), radius(:)
    integer, intent(out), optional :: status
    type(dg_atoms) :: atoms
    integer(c_int) :: st
    character(len=64) :: got
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    if (.not. points_fit(calc, 'dg_calc_set_atoms', 'position', position, status)) return
    if (size(charge) /= size(position, 2) .or. size(radius) /= size(position, 2)) then
      write (got, '(3(i0, a))') size(position, 2), ' positions, ', size(charge), &
        ' charges, ', size(radius), ' radii'
      call shape_error(calc, 'dg_calc_set_atoms', 'one charge and one radius per position: ' &
                       // trim(got), status)
      return
    end if
    atoms%count = int(size(charge), c_long)
    atoms%position = c_loc(position)
    atoms%charge = c_loc(charge)
    atoms%radius = c_loc(radius)
    st = c_dg_calc_set_atoms(calc%handle, atoms)
    if (st == DG_OK) calc%atom_count = size(charge)
    call finish(st, calc, 'dg_calc_set_atoms', status)
  end subroutine dg_calc_set_atoms

  !> New positions (3, n) for the same atoms: the grid stays where it is (MD frames).
  subroutine dg_calc_set_positions(calc, position, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), intent(in), contiguous :: position(:, :)
    integer, intent(out), optional :: status
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    if (.not. atoms_fit(calc, 'dg_calc_set_positions', 'position', 3, size(position), status)) &
      return
    call finish(c_dg_calc_set_positions(calc%handle, position), calc, 'dg_calc_set_positions', &
                status)
  end subroutine dg_calc_set_positions

  !> New charges (n) for the same atoms (titration states).
  subroutine dg_calc_set_charges(calc, charge, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), intent(in), contiguous :: charge(:)
    integer, intent(out), optional :: status
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    if (.not. atoms_fit(calc, 'dg_calc_set_charges', 'charge', 1, size(charge), status)) return
    call finish(c_dg_calc_set_charges(calc%handle, charge), calc, 'dg_calc_set_charges', status)
  end subroutine dg_calc_set_charges

  !> An array of per_atom values for each atom set: .false. (and the error handed on) when its
  !> size differs or no atoms were set.
  logical function atoms_fit(calc, where, name, per_atom, values, status)
    type(dg_calc), intent(inout) :: calc
    character(len=*), intent(in) :: where, name
    integer, intent(in) :: per_atom, values
    integer, intent(out), optional :: status
    character(len=96) :: got
    atoms_fit = calc%atom_count > 0 .and. values == per_atom * calc%atom_count
    if (atoms_fit) return
    if (calc%atom_count == 0) then
      calc%wrapper_error = where // ': no atoms set (dg_calc_set_atoms first)'
      call finish(DG_ERR_STATE, calc, where, status)
      return
    end if
    write (got, '(a, i0, a, i0, a, i0)') ' has ', values, ' values; ', calc%atom_count, &
      ' atoms need ', per_atom * calc%atom_count
    call shape_error(calc, where, name // trim(got), status)
  end function atoms_fit

  !> The coarser map for DG_BOUNDARY_FOCUSING: phi(m, m, m) (x fastest) of a cubic grid with
  !> the given scale (points per Angstrom) and centre (Angstrom); copied.
  subroutine dg_calc_set_focus_map(calc, phi, scale, center, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), intent(in), contiguous :: phi(:, :, :)
    real(c_double), intent(in) :: scale, center(3)
    integer, intent(out), optional :: status
    character(len=64) :: got
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    if (size(phi, 1) /= size(phi, 2) .or. size(phi, 1) /= size(phi, 3)) then
      write (got, '(i0, 2(" x ", i0))') shape(phi)
      call shape_error(calc, 'dg_calc_set_focus_map', 'the map must be a cube, not ' // &
                       trim(got), status)
      return
    end if
    call finish(c_dg_calc_set_focus_map(calc%handle, phi, int(size(phi, 1), c_int), scale, &
                                        center), calc, 'dg_calc_set_focus_map', status)
  end subroutine dg_calc_set_focus_map

  ! ---- run and results ------------------------------------------------------------------------

  !> Run the calculation for the current atoms.  A solve that does not converge is reported in
  !> result%solve%outcome (status DG_OK).
  subroutine dg_calc_run(calc, result, status)
    type(dg_calc), intent(inout) :: calc
    type(dg_calc_result), intent(out) :: result
    integer, intent(out), optional :: status
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    call finish(c_dg_calc_run(calc%handle, result), calc, 'dg_calc_run', status)
  end subroutine dg_calc_run

  !> The binding of two partners of the current atoms: partner(i) is 0 or 1 for atom i.  Runs
  !> each partner alone and then the complex, all on the complex's grid; the calculation then
  !> holds the complex's run, reported in result.  atom_energy(n), when present, receives each
  !> atom's part of binding%energy (kT; they sum to it).
  subroutine dg_calc_run_binding(calc, partner, result, binding, status, atom_energy)
    type(dg_calc), intent(inout) :: calc
    integer(c_int), intent(in), contiguous :: partner(:)
    type(dg_calc_result), intent(out) :: result
    type(dg_calc_binding), intent(out) :: binding
    integer, intent(out), optional :: status
    real(c_double), intent(out), contiguous, target, optional :: atom_energy(:)
    type(c_ptr) :: parts
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    if (.not. atoms_fit(calc, 'dg_calc_run_binding', 'partner', 1, size(partner), status)) return
    parts = c_null_ptr
    if (present(atom_energy)) then
      if (.not. atoms_fit(calc, 'dg_calc_run_binding', 'atom_energy', 1, size(atom_energy), &
                          status)) return
      parts = c_loc(atom_energy)
    end if
    call finish(c_dg_calc_run_binding(calc%handle, partner, result, binding, parts), calc, &
                'dg_calc_run_binding', status)
  end subroutine dg_calc_run_binding

  !> The grid (valid after dg_calc_set_atoms).
  subroutine dg_calc_get_grid(calc, grid, status)
    type(dg_calc), intent(inout) :: calc
    type(dg_calc_grid), intent(out) :: grid
    integer, intent(out), optional :: status
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    call finish(c_dg_calc_get_grid(calc%handle, grid), calc, 'dg_calc_get_grid', status)
  end subroutine dg_calc_get_grid

  !> phi(n, n, n) of a real kind fits the calculation's grid: .false. (error handed on) if not.
  logical function map_fits(calc, where, extents, status)
    type(dg_calc), intent(inout) :: calc
    character(len=*), intent(in) :: where
    integer, intent(in) :: extents(3)
    integer, intent(out), optional :: status
    character(len=96) :: got
    integer :: n
    n = grid_edge(calc)
    map_fits = n > 0 .and. all(extents == n)
    if (map_fits) return
    write (got, '(a, i0, 2(" x ", i0), a, i0, a)') 'phi is ', extents, '; the grid is ', n, &
      ' points per axis'
    call shape_error(calc, where, trim(got), status)
  end function map_fits

  !> The last run's potential in real(c_float), phi(n, n, n).
  subroutine dg_calc_potential_f(calc, phi, status)
    type(dg_calc), intent(inout) :: calc
    real(c_float), intent(out), contiguous :: phi(:, :, :)
    integer, intent(out), optional :: status
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    if (.not. map_fits(calc, 'dg_calc_potential', shape(phi), status)) return
    call finish(c_dg_calc_potential_f(calc%handle, phi), calc, 'dg_calc_potential', status)
  end subroutine dg_calc_potential_f

  !> The last run's potential in real(c_double), phi(n, n, n).
  subroutine dg_calc_potential_d(calc, phi, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), intent(out), contiguous :: phi(:, :, :)
    integer, intent(out), optional :: status
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    if (.not. map_fits(calc, 'dg_calc_potential', shape(phi), status)) return
    call finish(c_dg_calc_potential_d(calc%handle, phi), calc, 'dg_calc_potential', status)
  end subroutine dg_calc_potential_d

  !> values(per_point, m) for points(3, m): .false. (error handed on) if the shapes differ.
  logical function values_fit(calc, where, points, per_point, values, status)
    type(dg_calc), intent(inout) :: calc
    character(len=*), intent(in) :: where
    real(c_double), intent(in) :: points(:, :)
    integer, intent(in) :: per_point, values
    integer, intent(out), optional :: status
    character(len=80) :: got
    values_fit = .false.
    if (.not. points_fit(calc, where, 'points', points, status)) return
    values_fit = values == per_point * size(points, 2)
    if (values_fit) return
    write (got, '(i0, a, i0, a)') values, ' values for ', size(points, 2), ' points'
    call shape_error(calc, where, trim(got), status)
  end function values_fit

  !> One of the functions of points (c_points_function) on points(3, m), per_point values a
  !> point into values (value_count of them), after the shapes were checked.
  subroutine points_call(fn, calc, where, points, per_point, values, value_count, status)
    procedure(c_points_function) :: fn
    type(dg_calc), intent(inout) :: calc
    character(len=*), intent(in) :: where
    real(c_double), intent(in), contiguous :: points(:, :)
    integer, intent(in) :: per_point, value_count
    real(c_double), intent(out) :: values(*)
    integer, intent(out), optional :: status
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    if (.not. values_fit(calc, where, points, per_point, value_count, status)) return
    call finish(fn(calc%handle, points, int(size(points, 2), c_long), values), calc, where, &
                status)
  end subroutine points_call

  !> The potential (kT/e) at points(3, m) by trilinear interpolation of the last run's map;
  !> NaN outside the grid.
  subroutine dg_calc_potentials_at(calc, points, potential, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), intent(in), contiguous :: points(:, :)
    real(c_double), intent(out), contiguous :: potential(:)
    integer, intent(out), optional :: status
    call points_call(c_dg_calc_potentials_at, calc, 'dg_calc_potentials_at', points, 1, &
                     potential, size(potential), status)
  end subroutine dg_calc_potentials_at

  !> The reaction-field potential (kT/e) of the last run's induced surface charges at
  !> points(3, m), DelPhi's site(r) (needs a run with DG_ENERGY_REACTION_FIELD).
  subroutine dg_calc_reaction_potentials_at(calc, points, potential, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), intent(in), contiguous :: points(:, :)
    real(c_double), intent(out), contiguous :: potential(:)
    integer, intent(out), optional :: status
    call points_call(c_dg_calc_reaction_potentials_at, calc, 'dg_calc_reaction_potentials_at', &
                     points, 1, potential, size(potential), status)
  end subroutine dg_calc_reaction_potentials_at

  !> The Coulombic potential (kT/e) of the atoms' charges in epsilon_in at points(3, m),
  !> DelPhi's site(c) (needs atoms, not a run).
  subroutine dg_calc_coulombic_potentials_at(calc, points, potential, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), intent(in), contiguous :: points(:, :)
    real(c_double), intent(out), contiguous :: potential(:)
    integer, intent(out), optional :: status
    call points_call(c_dg_calc_coulombic_potentials_at, calc, &
                     'dg_calc_coulombic_potentials_at', points, 1, potential, size(potential), &
                     status)
  end subroutine dg_calc_coulombic_potentials_at

  !> The Coulombic field (kT/(e A)) of the atoms' charges in epsilon_in at points(3, m), in
  !> field(3, m); a charge q at a point feels q times it (DelPhi's site(cf)).
  subroutine dg_calc_coulombic_fields_at(calc, points, field, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), intent(in), contiguous :: points(:, :)
    real(c_double), intent(out), contiguous :: field(:, :)
    integer, intent(out), optional :: status
    call points_call(c_dg_calc_coulombic_fields_at, calc, 'dg_calc_coulombic_fields_at', &
                     points, 3, field, size(field), status)
  end subroutine dg_calc_coulombic_fields_at

  !> DelPhi's reaction-field force (kT/A) on each atom, force(3, n), after a run with
  !> DG_ENERGY_REACTION_FIELD (site(rf); the forces sum to zero over the atoms).
  subroutine dg_calc_reaction_forces(calc, force, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), intent(out), contiguous :: force(:, :)
    integer, intent(out), optional :: status
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    if (.not. atoms_fit(calc, 'dg_calc_reaction_forces', 'force', 3, size(force), status)) return
    call finish(c_dg_calc_reaction_forces(calc%handle, force), calc, 'dg_calc_reaction_forces', &
                status)
  end subroutine dg_calc_reaction_forces

  !> The last run's induced surface charges (DelPhi's out(scrg)), one per dielectric-boundary
  !> point: position(3, k) on the molecular surface (Angstrom) and charge(k) (e), allocated
  !> here (needs a run with DG_ENERGY_REACTION_FIELD).
  subroutine dg_calc_induced_charges(calc, position, charge, status)
    type(dg_calc), intent(inout) :: calc
    real(c_double), allocatable, target, intent(out) :: position(:, :), charge(:)
    integer, intent(out), optional :: status
    integer(c_long) :: count
    integer(c_int) :: st
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    count = 0
    st = c_dg_calc_induced_charges(calc%handle, count, c_null_ptr, c_null_ptr)
    if (st /= DG_OK) count = 0
    allocate (position(3, count), charge(count))
    if (count > 0) then
      st = c_dg_calc_induced_charges(calc%handle, count, c_loc(position), c_loc(charge))
      if (st /= DG_OK) then
        deallocate (position, charge)
        allocate (position(3, 0), charge(0))
      end if
    end if
    call finish(st, calc, 'dg_calc_induced_charges', status)
  end subroutine dg_calc_induced_charges

  !> The last run's medium (solute(n, n, n, 3): 1 where the x, y or z face midpoint of a point
  !> lies in the molecule, else 0) and ion map (ion_accessible(n, n, n): 1 where mobile ions
  !> may be), x fastest; at least one of them.
  subroutine dg_calc_medium_maps(calc, solute, ion_accessible, status)
    type(dg_calc), intent(inout) :: calc
    integer(c_signed_char), intent(out), optional, contiguous, target :: solute(:, :, :, :)
    integer(c_signed_char), intent(out), optional, contiguous, target :: ion_accessible(:, :, :)
    integer, intent(out), optional :: status
    type(c_ptr) :: solute_ptr, ion_ptr
    character(len=96) :: got
    integer :: n
    if (allocated(calc%wrapper_error)) deallocate (calc%wrapper_error)
    n = grid_edge(calc)
    solute_ptr = c_null_ptr
    ion_ptr = c_null_ptr
    if (present(solute)) then
      if (n == 0 .or. any(shape(solute) /= [n, n, n, 3])) then
        write (got, '(a, i0, 3(" x ", i0), a, i0)') 'solute is ', shape(solute), &
          '; (n, n, n, 3) with n = ', n
        call shape_error(calc, 'dg_calc_medium_maps', trim(got), status)
        return
      end if
      solute_ptr = c_loc(solute)
    end if
    if (present(ion_accessible)) then
      if (n == 0 .or. any(shape(ion_accessible) /= [n, n, n])) then
        write (got, '(a, i0, 2(" x ", i0), a, i0)') 'ion_accessible is ', shape(ion_accessible), &
          '; (n, n, n) with n = ', n
        call shape_error(calc, 'dg_calc_medium_maps', trim(got), status)
        return
      end if
      ion_ptr = c_loc(ion_accessible)
    end if
    call finish(c_dg_calc_medium_maps(calc%handle, solute_ptr, ion_ptr), calc, &
                'dg_calc_medium_maps', status)
  end subroutine dg_calc_medium_maps

end module delphi_gpu_calc
