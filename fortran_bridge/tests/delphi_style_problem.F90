!> Test support: a small DelPhi-style problem in the data layout of DelPhi itself
!> (docs/SOLVER.md, "Data layout"), built from scratch in real(c_double): a low-dielectric
!> sphere with a few charges in water, optional salt with an ion-exclusion layer.
!>  - dielectric at the cell-face midpoints, divided by epkt;
!>  - boundary points (six face values not all equal): idpos/db in face order x-,x+,y-,y+,z-,z+,
!>    odd points first; db = eps_f/D - 1/6 without salt, eps_f/D with salt (sf = 0 there);
!>  - sf1/sf2 = 1/6, or eps_out/(6 eps_out + debfct) where ions are allowed (idebmap);
!>  - charges spread trilinearly, interior points only, odd first; qval = 4 pi scale q / D;
!>  - phimap: Debye-Hueckel sum of the charges on the six faces, 0 inside.
module delphi_style_problem
  use, intrinsic :: iso_c_binding, only: c_bool, c_double, c_int
  implicit none
  private
  public :: delphi_problem, build_problem, half_index, spectral_radius_uniform

  real(c_double), parameter :: EPKT = 561.0_c_double      ! 166804.4928 / 297.3342
  real(c_double), parameter :: FOUR_PI = 12.566_c_double  ! as DelPhi codes it

  type :: delphi_problem
    integer :: igrid = 0, nhgp = 0, ngp = 0, nsp = 0
    logical :: salt = .false.
    real(c_double) :: scale = 0, epsin = 0, epsout = 0, rionst = 0, deblen = 0, debfct = 0
    real(c_double) :: spec = 0, qfact = 0, chi(4) = 0
    integer(c_int) :: icount2a = 0, icount2b = 0, icount1a = 0, icount1b = 0
    integer(c_int), allocatable :: idpos(:), iqpos(:)
    real(c_double), allocatable :: db(:, :), qval(:), gval(:), sf1(:), sf2(:)
    logical(c_bool), allocatable :: idebmap(:, :, :)
    real(c_double), allocatable :: phimap(:, :, :)
  end type delphi_problem

contains

  !> DelPhi half-index of the 1-based point (i, j, k).
  integer function half_index(igrid, i, j, k)
    integer, intent(in) :: igrid, i, j, k
    half_index = (i + igrid * (j - 1) + igrid * igrid * (k - 1) + 1) / 2
  end function half_index

  !> Gauss-Seidel spectral radius of the uniform Laplacian (a stand-in for relfac).
  real(c_double) function spectral_radius_uniform(igrid)
    integer, intent(in) :: igrid
    spectral_radius_uniform = cos(acos(-1.0_c_double) / (igrid - 1))**2
  end function spectral_radius_uniform

  !> Build the problem.  atoms(4, n): x, y, z in grid units (1-based), charge in e.
  subroutine build_problem(p, igrid, scale, radius, atoms, ionic_strength)
    type(delphi_problem), intent(out) :: p
    integer, intent(in) :: igrid
    real(c_double), intent(in) :: scale, radius, atoms(:, :), ionic_strength
    real(c_double), allocatable :: face(:, :, :, :), qgrid(:, :, :)
    real(c_double) :: centre, eps6(6), d, sf_salt
    integer :: i, j, k, n, pass, parity

    p%igrid = igrid
    p%ngp = igrid**3
    p%nhgp = (p%ngp + 1) / 2
    p%scale = scale
    p%epsin = 2.0_c_double / EPKT
    p%epsout = 80.0_c_double / EPKT
    p%salt = ionic_strength > 0
    p%rionst = ionic_strength
    p%spec = spectral_radius_uniform(igrid)
    if (p%salt) then
      p%deblen = 0.01990076_c_double * sqrt(297.3342_c_double * 80.0_c_double / ionic_strength)
      p%debfct = p%epsout / (p%deblen * scale)**2
      p%chi = [0.0_c_double, -ionic_strength / 3, 0.0_c_double, -ionic_strength / 60]
    end if
    centre = (igrid + 1) / 2.0_c_double

    ! Face-midpoint dielectrics: face(f, i, j, k) toward x-, x+, y-, y+, z-, z+.
    allocate (face(6, igrid, igrid, igrid), p%idebmap(igrid, igrid, igrid))
    do k = 1, igrid
      do j = 1, igrid
        do i = 1, igrid
          face(1, i, j, k) = medium_eps(p, [i - 0.5_c_double, real(j, c_double), &
                                            real(k, c_double)], centre, radius)
          face(2, i, j, k) = medium_eps(p, [i + 0.5_c_double, real(j, c_double), &
                                            real(k, c_double)], centre, radius)
          face(3, i, j, k) = medium_eps(p, [real(i, c_double), j - 0.5_c_double, &
                                            real(k, c_double)], centre, radius)
          face(4, i, j, k) = medium_eps(p, [real(i, c_double), j + 0.5_c_double, &
                                            real(k, c_double)], centre, radius)
          face(5, i, j, k) = medium_eps(p, [real(i, c_double), real(j, c_double), &
                                            k - 0.5_c_double], centre, radius)
          face(6, i, j, k) = medium_eps(p, [real(i, c_double), real(j, c_double), &
                                            k + 0.5_c_double], centre, radius)
          p%idebmap(i, j, k) = logical(p%salt .and. distance([real(i, c_double), &
            real(j, c_double), real(k, c_double)], centre) > (radius + 2.0_c_double) * scale, &
            c_bool)
        end do
      end do
    end do

    ! Salt factors everywhere, then the boundary list (two passes: count, fill; odd first).
    allocate (p%sf1(p%nhgp), p%sf2(p%nhgp))
    p%sf1 = 0
    p%sf2 = 0
    sf_salt = p%epsout / (6 * p%epsout + p%debfct)
    if (p%salt) then
      do k = 1, igrid
        do j = 1, igrid
          do i = 1, igrid
            call set_half(p, i, j, k, merge(sf_salt, 1.0_c_double / 6, &
                                            logical(p%idebmap(i, j, k))))
          end do
        end do
      end do
    end if
    do pass = 1, 2
      n = 0
      do parity = 1, 0, -1
        do k = 2, igrid - 1
          do j = 2, igrid - 1
            do i = 2, igrid - 1
              if (mod(i + j + k, 2) /= parity) cycle
              eps6 = face(:, i, j, k)
              if (all(eps6 == eps6(1))) cycle
              n = n + 1
              if (pass == 1) cycle
              d = sum(eps6)
              if (p%idebmap(i, j, k)) d = d + p%debfct
              p%idpos(n) = half_index(igrid, i, j, k)
              if (p%salt) then
                p%db(:, n) = eps6 / d
                call set_half(p, i, j, k, 0.0_c_double)
              else
                p%db(:, n) = eps6 / d - 1.0_c_double / 6
              end if
            end do
          end do
        end do
        if (parity == 1 .and. pass == 2) p%icount2a = n
      end do
      if (pass == 1) then
        p%icount2b = n
        p%nsp = 2 * (n + 1)
        allocate (p%idpos(p%nsp), p%db(6, p%nsp))
        p%idpos = 0
        p%db = 0
      end if
    end do

    ! Charges: trilinear spreading, interior points kept, odd first.
    allocate (qgrid(igrid, igrid, igrid))
    qgrid = 0
    do n = 1, size(atoms, 2)
      call spread_charge(qgrid, atoms(1:3, n), atoms(4, n))
    end do
    do pass = 1, 2
      n = 0
      do parity = 1, 0, -1
        do k = 2, igrid - 1
          do j = 2, igrid - 1
            do i = 2, igrid - 1
              if (mod(i + j + k, 2) /= parity .or. qgrid(i, j, k) == 0) cycle
              n = n + 1
              if (pass == 1) cycle
              d = sum(face(:, i, j, k))
              if (p%idebmap(i, j, k)) d = d + p%debfct
              p%iqpos(n) = half_index(igrid, i, j, k)
              p%gval(n) = qgrid(i, j, k)
              p%qval(n) = FOUR_PI * scale * qgrid(i, j, k) / d
            end do
          end do
        end do
        if (parity == 1 .and. pass == 2) p%icount1a = n
      end do
      if (pass == 1) then
        p%icount1b = n
        allocate (p%iqpos(n), p%qval(n), p%gval(n))
      end if
    end do
    p%qfact = abs(sum(atoms(4, :))) * count_not_interior(p, face, qgrid) / max(1, p%icount2b)

    ! Boundary values: Debye-Hueckel (Coulomb without salt) sum over the atoms.
    allocate (p%phimap(igrid, igrid, igrid))
    p%phimap = 0
    do k = 1, igrid
      do j = 1, igrid
        do i = 1, igrid
          if (i > 1 .and. i < igrid .and. j > 1 .and. j < igrid .and. k > 1 .and. k < igrid) &
            cycle
          p%phimap(i, j, k) = debye_hueckel(p, atoms, [i, j, k])
        end do
      end do
    end do
  end subroutine build_problem

  real(c_double) function distance(x, centre)
    real(c_double), intent(in) :: x(3), centre
    distance = sqrt(sum((x - centre)**2))
  end function distance

  real(c_double) function medium_eps(p, x, centre, radius)
    type(delphi_problem), intent(in) :: p
    real(c_double), intent(in) :: x(3), centre, radius
    medium_eps = merge(p%epsin, p%epsout, distance(x, centre) < radius * p%scale)
  end function medium_eps

  !> Store v in sf1 or sf2 at the point (i, j, k) by its parity.
  subroutine set_half(p, i, j, k, v)
    type(delphi_problem), intent(inout) :: p
    integer, intent(in) :: i, j, k
    real(c_double), intent(in) :: v
    integer :: w
    w = i + p%igrid * (j - 1) + p%igrid**2 * (k - 1)
    if (mod(w, 2) == 1) then
      p%sf1((w + 1) / 2) = v
    else
      p%sf2(w / 2) = v
    end if
  end subroutine set_half

  subroutine spread_charge(qgrid, x, q)
    real(c_double), intent(inout) :: qgrid(:, :, :)
    real(c_double), intent(in) :: x(3), q
    integer :: base(3), a, b, c
    real(c_double) :: f(3)
    base = floor(x)
    f = x - base
    do c = 0, 1
      do b = 0, 1
        do a = 0, 1
          qgrid(base(1) + a, base(2) + b, base(3) + c) = &
            qgrid(base(1) + a, base(2) + b, base(3) + c) + q * &
            abs((1 - a - f(1) * (1 - 2 * a)) * (1 - b - f(2) * (1 - 2 * b)) * &
                (1 - c - f(3) * (1 - 2 * c)))
        end do
      end do
    end do
  end subroutine spread_charge

  !> Charged points that are boundary points or salt points (DelPhi's cgbp count).
  integer function count_not_interior(p, face, qgrid)
    type(delphi_problem), intent(in) :: p
    real(c_double), intent(in) :: face(:, :, :, :), qgrid(:, :, :)
    integer :: i, j, k
    count_not_interior = 0
    do k = 2, p%igrid - 1
      do j = 2, p%igrid - 1
        do i = 2, p%igrid - 1
          if (qgrid(i, j, k) == 0) cycle
          if (any(face(:, i, j, k) /= face(1, i, j, k)) .or. p%idebmap(i, j, k)) &
            count_not_interior = count_not_interior + 1
        end do
      end do
    end do
  end function count_not_interior

  real(c_double) function debye_hueckel(p, atoms, point)
    type(delphi_problem), intent(in) :: p
    real(c_double), intent(in) :: atoms(:, :)
    integer, intent(in) :: point(3)
    real(c_double) :: r
    integer :: n
    debye_hueckel = 0
    do n = 1, size(atoms, 2)
      r = sqrt(sum((point - atoms(1:3, n))**2)) / p%scale
      if (p%salt) then
        debye_hueckel = debye_hueckel + atoms(4, n) * exp(-r / p%deblen) / (p%epsout * r)
      else
        debye_hueckel = debye_hueckel + atoms(4, n) / (p%epsout * r)
      end if
    end do
  end function debye_hueckel

end module delphi_style_problem
