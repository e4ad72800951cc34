!> Test support: an independent plain-Fortran SOR written from docs/SOLVER.md, in both
!> REAL kinds of DelPhi (ref_sor_f: real*4, ref_sor_d: real*8; generic ref_sor).
module reference_sor
  use, intrinsic :: iso_c_binding, only: c_bool, c_double, c_float
  implicit none
  private
  public :: ref_sor, ref_sor_f, ref_sor_d

  interface ref_sor
    module procedure ref_sor_f, ref_sor_d
  end interface ref_sor

contains

#define TK c_float
#define REF_SOR ref_sor_f
#include "reference_sor_body.inc"
#undef TK
#undef REF_SOR

#define TK c_double
#define REF_SOR ref_sor_d
#include "reference_sor_body.inc"
#undef TK
#undef REF_SOR

end module reference_sor
