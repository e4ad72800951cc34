!> The DelPhi-convention entry points (dg_delphi_itit/nitit, both REAL kinds) on DelPhi-style
!> data agree with the general C API on the same problem, leave phimap, db, sf1, sf2, qval and
!> the COMMON values as DelPhi does, and reject what they do not support with a clear status.
program test_delphi_entry
  use, intrinsic :: iso_c_binding, only: c_double, c_float, c_int
  use delphi_gpu
  use test_checks
  use delphi_style_problem
  use entry_checks
  implicit none
  type(delphi_problem) :: plain, salty
  real(c_double), parameter :: atoms(4, 3) = reshape([ &
    11.3d0, 10.6d0, 11.2d0, 1.0d0, &
    12.4d0, 11.7d0, 10.3d0, -0.5d0, &
    9.8d0, 11.1d0, 12.6d0, 1.5d0], [4, 3])

  call build_problem(plain, 21, 1.0d0, 4.0d0, atoms, 0.0d0)
  call build_problem(salty, 21, 1.0d0, 4.0d0, atoms, 0.15d0)
  if (plain%icount2b == 0 .or. plain%icount1b == 0 .or. .not. any(salty%idebmap)) &
    error stop 'test problem has no boundary points, charges or salt'

  call run_all_f(plain, salty)
  call run_all_d(plain, salty)
  call check_rejections(salty)

  call report_checks('DelPhi-convention entry points agree with the C API')

contains

  !> Unsupported options and bad values: the right status, a message naming the problem, and
  !> the caller's data untouched.
  subroutine check_rejections(p)
    type(delphi_problem), intent(in) :: p
    type(dg_delphi_control) :: good, c
    call base_control(p, good)
    good%nlit = 10
    c = good
    c%diff = 1
    call expect_rejected(p, c, p%spec, DG_ERR_UNSUPPORTED, 'diff')
    c = good
    c%periodic(5) = 1
    call expect_rejected(p, c, p%spec, DG_ERR_UNSUPPORTED, 'voltage drop')
    c = good
    c%chebyshev = 1
    call expect_rejected(p, c, p%spec, DG_ERR_UNSUPPORTED, 'chebit')
    c = good
    c%gten = 0.01d0
    call expect_rejected(p, c, p%spec, DG_ERR_UNSUPPORTED, 'grdcon')
    c = good
    call expect_rejected(p, c, 1.0d0, DG_ERR_BAD_OMEGA, 'spec')
    c = good
    c%nlit = 0
    call expect_rejected(p, c, p%spec, DG_ERR_INVALID_ARGUMENT, 'nlit')
    c = good
    c%igrid = 20
    call expect_rejected(p, c, p%spec, DG_ERR_INVALID_GRID, 'igrid')
    c = good
    c%struct_size = 0
    call expect_rejected(p, c, p%spec, DG_ERR_INVALID_ARGUMENT, 'dg_delphi_default_control')
  end subroutine check_rejections

  subroutine expect_rejected(p, c, spec, expected, word)
    type(delphi_problem), intent(in) :: p
    type(dg_delphi_control), intent(in) :: c
    real(c_double), intent(in) :: spec
    integer, intent(in) :: expected
    character(len=*), intent(in) :: word
    type(kind_data_d) :: d, original
    type(dg_delphi_report) :: report
    integer :: status
    character(len=:), allocatable :: message
    call to_kind(p, original)
    original%spec = spec
    d = original
    call call_itit(p, d, c, report, status)
    message = dg_c_chars_to_string(report%message)
    call expect(status == expected, 'rejecting ' // word // ': got status ' // &
                dg_status_string(status) // ' (' // message // ')')
    call expect(index(message, word) > 0, 'rejecting ' // word // ': message "' // message // &
                '" does not name it')
    call expect(all(d%phimap == original%phimap) .and. all(d%db == original%db) .and. &
                all(d%qval == original%qval), 'rejecting ' // word // ': data changed')
  end subroutine expect_rejected

#define TK c_float
#define KIND_DATA kind_data_f
#define PRECISION_CODE DG_PRECISION_FLOAT
#define TOLERANCE 1d-6
#define AUTO_TOLERANCE 1d-4
#define LABEL 'real*4: '
#define RUN_CASE run_case_f
#define RUN_ALL run_all_f
#include "test_delphi_entry_cases.inc"
#undef TK
#undef KIND_DATA
#undef PRECISION_CODE
#undef TOLERANCE
#undef AUTO_TOLERANCE
#undef LABEL
#undef RUN_CASE
#undef RUN_ALL

#define TK c_double
#define KIND_DATA kind_data_d
#define PRECISION_CODE DG_PRECISION_DOUBLE
#define TOLERANCE 1d-13
#define AUTO_TOLERANCE 1d-10
#define LABEL 'real*8: '
#define RUN_CASE run_case_d
#define RUN_ALL run_all_d
#include "test_delphi_entry_cases.inc"

end program test_delphi_entry
