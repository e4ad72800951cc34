!> The checks of the Fortran test programs: expect() counts failures and prints each one;
!> report_checks() ends the program, with exit status 1 when anything failed.
module test_checks
  implicit none
  private
  public :: expect, report_checks
  integer, save :: failures = 0
contains
  subroutine expect(condition, message)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: message
    if (condition) return
    failures = failures + 1
    write (*, '(a, a)') 'FAILED: ', message
  end subroutine expect

  subroutine report_checks(success)
    character(len=*), intent(in) :: success
    if (failures > 0) then
      write (*, '(i0, a)') failures, ' check(s) failed'
      error stop 1
    end if
    write (*, '(a)') success
  end subroutine report_checks
end module test_checks
