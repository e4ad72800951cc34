!> delphi_gpu_kit: the DelPhi side of the drop-in replacements in patches/ (itit, nitit).
!> It reads the run-time settings from the environment, prints the convergence table and the
!> end-of-iteration summary into the DelPhi log, and stops DelPhi with a clear message when
!> the solver fails (DelPhi routines have no error return).
!>
!> Environment (all optional):
!>   DELPHI_GPU_BACKEND  auto (default: the GPU when one works, else the CPU, said in the log),
!>                       cpu, or cuda (an error if no GPU can be used)
!>   DELPHI_GPU_DEVICE   CUDA device ordinal (default 0)
!>   DELPHI_GPU_THREADS  CPU threads (default: OpenMP default)
!>   DELPHI_GPU_PRECISION  default (stock behaviour: the arithmetic of DelPhi's REAL kind) or
!>                       mixed (float sweeps, the iterate and the stopping test in double: a
!>                       single-precision build then meets maxc/rmsc below float's
!>                       resolution; the result is returned in DelPhi's REAL kind)
!>   DELPHI_GPU_MIN_POINTS  with auto, grids of fewer points (igrid**3) run on the CPU
!>                       (default DG_DELPHI_GPU_MIN_POINTS; 0 = the GPU whenever one works)
!>   DELPHI_GPU_EARLY_START  when CUDA's start-up begins, overlapping DelPhi's set-up
!>                       (kit_early_start.c): auto (default) once DelPhi's grid is large
!>                       enough for the GPU (193 points along an edge), 1 when the program
!>                       starts, 0 never (the first call on the GPU starts it)
!>   DELPHI_GPU_QUIET    1 = no convergence table (the summary is still printed)
!>   DELPHI_GPU_TIMING   1 = each call's parts in the log (seconds: solver, medium, transfers,
!>                       loop; dg_delphi_last_call_parts)
!>   DELPHI_GPU_WAIT_POLICY_CHOSEN  set by the kit's start-up (libdelphi_gpu_start.a) when it
!>                       chose OpenMP's passive waiting on a busy machine; noted once in the log
module delphi_gpu_kit
  use, intrinsic :: iso_c_binding, only: c_double, c_funloc, c_int, c_null_ptr, c_ptr
  use, intrinsic :: iso_fortran_env, only: error_unit, output_unit
  use delphi_gpu
  implicit none
  private
  public :: dg_kit_configure, dg_kit_finish

  !> Whether the convergence table of the current call has its header yet, and is wanted.
  logical, save :: table_started = .false., table_wanted = .true.
  !> Whether each call's parts are printed (DELPHI_GPU_TIMING=1).
  logical, save :: timing_wanted = .false.
  !> Whether the run's OpenMP wait policy was noted (note_wait_policy).
  logical, save :: wait_noted = .false.

contains

  !> Fill the delphi-gpu part of control from the environment; routine names the caller.
  subroutine dg_kit_configure(routine, control)
    character(len=*), intent(in) :: routine
    type(dg_delphi_control), intent(inout) :: control
    character(len=64) :: value
    control%backend = DG_BACKEND_AUTO
    if (environment('DELPHI_GPU_BACKEND', value)) then
      select case (lower(value))
      case ('auto')
        control%backend = DG_BACKEND_AUTO
      case ('cpu')
        control%backend = DG_BACKEND_CPU
      case ('cuda', 'gpu')
        control%backend = DG_BACKEND_CUDA
      case default
        call stop_run(routine, 'DELPHI_GPU_BACKEND="' // trim(value) // &
                      '" is not auto, cpu or cuda')
      end select
    end if
    if (environment('DELPHI_GPU_DEVICE', value)) &
      control%device = whole_number(routine, 'DELPHI_GPU_DEVICE', value)
    if (environment('DELPHI_GPU_THREADS', value)) &
      control%num_threads = whole_number(routine, 'DELPHI_GPU_THREADS', value)
    control%mixed_precision = 0
    if (environment('DELPHI_GPU_PRECISION', value)) then
      select case (lower(value))
      case ('default')
        control%mixed_precision = 0
      case ('mixed')
        control%mixed_precision = 1
      case default
        call stop_run(routine, 'DELPHI_GPU_PRECISION="' // trim(value) // &
                      '" is not default or mixed')
      end select
    end if
    if (environment('DELPHI_GPU_MIN_POINTS', value)) &
      control%gpu_min_points = whole_number(routine, 'DELPHI_GPU_MIN_POINTS', value)
    if (environment('DELPHI_GPU_EARLY_START', value)) then
      select case (lower(value))
      case ('auto', '0', '1')
      case default
        call stop_run(routine, 'DELPHI_GPU_EARLY_START="' // trim(value) // &
                      '" is not auto, 0 or 1')
      end select
    end if
    table_wanted = .true.
    if (environment('DELPHI_GPU_QUIET', value)) table_wanted = trim(value) == '0'
    timing_wanted = .false.
    if (environment('DELPHI_GPU_TIMING', value)) timing_wanted = trim(value) == '1'
    table_started = .false.
    control%progress = c_funloc(print_progress)
    control%progress_user_data = c_null_ptr
    call note_wait_policy()
  end subroutine dg_kit_configure

  !> Once per run: say when OpenMP's threads wait passively because DelPhi started on a busy
  !> machine (libdelphi_gpu_start.a, linked in by the kit, chose it and recorded what it saw).
  subroutine note_wait_policy()
    character(len=64) :: value
    integer :: running, ios
    real :: load
    if (wait_noted) return
    wait_noted = .true.
    if (.not. environment('DELPHI_GPU_WAIT_POLICY_CHOSEN', value)) return
    if (value(1:8) /= 'passive ') return
    read (value(9:), *, iostat=ios) running, load
    if (ios /= 0 .or. running < 0) then
      write (output_unit, '(1x, a)') 'delphi-gpu: OpenMP''s idle threads wait passively ' // &
        '(the machine''s load unknown at start; OMP_WAIT_POLICY=active or passive decides)'
    else
      write (output_unit, '(1x, a, i0, a, f0.2, a)') 'delphi-gpu: OpenMP''s idle threads ' // &
        'wait passively (DelPhi started beside other work: ', running, ' runnable tasks, load ', &
        load, '; OMP_WAIT_POLICY=active or passive decides)'
    end if
  end subroutine note_wait_policy

  !> After the call: stop DelPhi on failure or divergence, else print the summary.
  subroutine dg_kit_finish(routine, status, report)
    character(len=*), intent(in) :: routine
    integer, intent(in) :: status
    type(dg_delphi_report), intent(in) :: report
    character(len=:), allocatable :: notice
    real(c_double) :: call_seconds, loop_seconds
    if (status /= DG_OK) call stop_run(routine, dg_status_string(status) // ': ' // &
                                       dg_c_chars_to_string(report%message))
    notice = dg_c_chars_to_string(report%notice)
    if (len(notice) > 0) write (output_unit, '(1x, a)') notice
    associate (r => report%result)
      write (output_unit, '(1x, 3a, a, a, a)') 'delphi-gpu ', routine, ': backend ', &
        trim(merge('cuda', 'cpu ', r%backend == DG_BACKEND_CUDA)), ', precision ', &
        trim(precision_name(r%precision))
      write (output_unit, '(1x, 3a, i0, 3a)') 'delphi-gpu ', routine, ': # loops = ', &
        r%iterations, ' (', dg_outcome_string(r%outcome), ')'
      if (r%nonlinear_blocks > 0) write (output_unit, '(1x, 3a, i0, a, i0, a, f8.5)') &
        'delphi-gpu ', routine, ': linear iterations ', r%linear_iterations, &
        ', nonlinear blocks of 10: ', r%nonlinear_blocks, ', final relpar ', r%final_relpar
      write (output_unit, '(1x, 3a, es12.5, 1x, es12.5)') 'delphi-gpu ', routine, &
        ': last rms-change, max change (kT/e): ', r%rms_change, r%max_change
      write (output_unit, '(1x, 3a, f10.3, a, f10.3)') 'delphi-gpu ', routine, &
        ': solver wall time (s): ', r%solve_seconds, ', set-up ', r%setup_seconds
      call dg_delphi_last_call_seconds(call_seconds, loop_seconds)
      write (output_unit, '(1x, 3a, f10.3, a, f10.3)') 'delphi-gpu ', routine, &
        ': call wall time (s): ', call_seconds, ', beyond the iteration loop ', &
        call_seconds - loop_seconds
      if (timing_wanted) write (output_unit, '(1x, 4a)') 'delphi-gpu ', routine, &
        ': call parts (s): ', dg_delphi_last_call_parts()
      if (r%outcome == DG_OUTCOME_DIVERGED) call stop_run(routine, &
        'the iteration diverged (growing or non-finite change); the potential is invalid')
    end associate
  end subroutine dg_kit_finish

  !> The convergence table, one line per check (the library calls this; never stops it).
  integer(c_int) function print_progress(progress, user_data) bind(C)
    type(dg_progress), intent(in) :: progress
    type(c_ptr), value :: user_data
    print_progress = 0
    if (.not. table_wanted) return
    if (.not. table_started) then
      write (output_unit, '(1x, a)') '  rms-change    max change  #iterations  (delphi-gpu)'
      table_started = .true.
    end if
    if (progress%phase == DG_PHASE_NONLINEAR) then
      write (output_unit, '(1x, es12.5, 2x, es12.5, i8, a, i0)') progress%rms_change, &
        progress%max_change, progress%iteration, '  nonlinear block ', progress%nonlinear_block
    else
      write (output_unit, '(1x, es12.5, 2x, es12.5, i8)') progress%rms_change, &
        progress%max_change, progress%iteration
    end if
  end function print_progress

  function precision_name(precision) result(name)
    integer(c_int), intent(in) :: precision
    character(len=48) :: name
    select case (precision)
    case (DG_PRECISION_FLOAT)
      name = 'real*4'
    case (DG_PRECISION_MIXED)
      name = 'mixed (real*4 sweeps, real*8 iterate)'
    case default
      name = 'real*8'
    end select
  end function precision_name

  logical function environment(name, value)
    character(len=*), intent(in) :: name
    character(len=*), intent(out) :: value
    integer :: length, stat
    call get_environment_variable(name, value, length, stat)
    environment = stat == 0 .and. length > 0
    if (stat /= 0) value = ''
  end function environment

  integer function whole_number(routine, name, value)
    character(len=*), intent(in) :: routine, name, value
    integer :: stat
    read (value, *, iostat=stat) whole_number
    if (stat /= 0 .or. whole_number < 0) &
      call stop_run(routine, name // '="' // trim(value) // '" is not a whole number >= 0')
  end function whole_number

  function lower(text) result(low)
    character(len=*), intent(in) :: text
    character(len=len_trim(text)) :: low
    integer :: i
    low = text(1:len_trim(text))
    do i = 1, len(low)
      if (low(i:i) >= 'A' .and. low(i:i) <= 'Z') low(i:i) = achar(iachar(low(i:i)) + 32)
    end do
  end function lower

  subroutine stop_run(routine, why)
    character(len=*), intent(in) :: routine, why
    write (error_unit, '(4a)') 'delphi-gpu ', routine, ' (DelPhi drop-in) failed: ', why
    error stop 1
  end subroutine stop_run

end module delphi_gpu_kit
