!> Test support: DelPhi's data in both REAL kinds, calls of the DelPhi-convention entry points
!> and of the general C API on the same problem, and comparison helpers.  Generic names:
!> to_kind, call_itit, call_nitit, solve_api, omega_of, relative_difference, signature_of.
module entry_checks
  use, intrinsic :: iso_c_binding, only: c_bool, c_double, c_float, c_int, c_loc, c_null_ptr
  use delphi_gpu
  use delphi_style_problem, only: delphi_problem
  implicit none
  private
  public :: kind_data_f, kind_data_d, to_kind, call_itit, call_nitit, solve_api, omega_of
  public :: relative_difference, signature_of, base_control

#include "entry_checks_kind_f.inc"
#include "entry_checks_type.inc"
#include "entry_checks_kind_undef.inc"
#include "entry_checks_kind_d.inc"
#include "entry_checks_type.inc"
#include "entry_checks_kind_undef.inc"

  interface to_kind
    module procedure to_kind_f, to_kind_d
  end interface to_kind
  interface call_itit
    module procedure call_itit_f, call_itit_d
  end interface call_itit
  interface call_nitit
    module procedure call_nitit_f, call_nitit_d
  end interface call_nitit
  interface solve_api
    module procedure solve_api_f, solve_api_d
  end interface solve_api
  interface omega_of
    module procedure omega_of_f, omega_of_d
  end interface omega_of
  interface relative_difference
    module procedure relative_difference_f, relative_difference_d
  end interface relative_difference
  interface signature_of
    module procedure signature_of_f, signature_of_d
  end interface signature_of

contains

#include "entry_checks_kind_f.inc"
#include "entry_checks_body.inc"
#include "entry_checks_kind_undef.inc"
#include "entry_checks_kind_d.inc"
#include "entry_checks_body.inc"
#include "entry_checks_kind_undef.inc"

  !> Control values of a run on problem p (the COMMON values DelPhi would have).
  subroutine base_control(p, c)
    type(delphi_problem), intent(in) :: p
    type(dg_delphi_control), intent(out) :: c
    call dg_delphi_default_control(c)
    c%igrid = p%igrid
    c%backend = DG_BACKEND_CPU
    c%ionic_strength = p%rionst
    c%epsout = p%epsout
    c%deblen = p%deblen
    c%scale = p%scale
    c%chi = p%chi
  end subroutine base_control

end module entry_checks
