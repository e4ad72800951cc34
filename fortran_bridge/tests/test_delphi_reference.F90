!> The DelPhi-convention entry points against an independent plain-Fortran SOR written from
!> DelPhi's rules (reference_sor.F90): same iterates after 1, 2, 7 and 30 iterations, same
!> stopping iteration under DelPhi's rules, in real*4 and real*8.
program test_delphi_reference
  use, intrinsic :: iso_c_binding, only: c_double, c_float
  use delphi_gpu
  use test_checks
  use delphi_style_problem
  use entry_checks
  use reference_sor
  implicit none
  type(delphi_problem) :: plain, salty
  real(c_double), parameter :: atoms(4, 3) = reshape([ &
    11.3d0, 10.6d0, 11.2d0, 1.0d0, &
    12.4d0, 11.7d0, 10.3d0, -0.5d0, &
    9.8d0, 11.1d0, 12.6d0, 1.5d0], [4, 3])

  call build_problem(plain, 21, 1.0d0, 4.0d0, atoms, 0.0d0)
  call build_problem(salty, 21, 1.0d0, 4.0d0, atoms, 0.15d0)
  call run_all_f(plain, salty)
  call run_all_d(plain, salty)
  call report_checks('DelPhi-convention entry points agree with the reference SOR')

contains

#define TK c_float
#define KIND_DATA kind_data_f
#define TOLERANCE 2d-6
#define LABEL 'real*4: '
#define COMPARE compare_f
#define RUN_ALL run_all_f
#include "test_delphi_reference_cases.inc"
#undef TK
#undef KIND_DATA
#undef TOLERANCE
#undef LABEL
#undef COMPARE
#undef RUN_ALL

#define TK c_double
#define KIND_DATA kind_data_d
#define TOLERANCE 1d-12
#define LABEL 'real*8: '
#define COMPARE compare_d
#define RUN_ALL run_all_d
#include "test_delphi_reference_cases.inc"

end program test_delphi_reference
