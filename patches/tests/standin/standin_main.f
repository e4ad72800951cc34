c     A tiny DelPhi-like main program for the kit's build test: it sets
c     the COMMON values through a stand-in header, calls itit and nitit
c     with DelPhi's argument lists (implicit interfaces, DelPhi's array
c     shapes), and checks what the kit's replacements did against a
c     direct call of the entry points.  Built in SP and in DP
c     (-fdefault-real-8).  With the argument "diff" it asks itit for
c     DelPhi's diff option, which must stop the run with a clear error.
      program standin
      use, intrinsic :: iso_c_binding, only: c_double, c_int
      use delphi_style_problem, only: delphi_problem, build_problem
      use delphi_gpu
      include 'standin_common.h'
      type(delphi_problem) plain, salty
      real, allocatable :: db(:,:), sf1(:), sf2(:), qval(:), gval(:)
      real, allocatable :: phimap(:,:,:), phimap1(:), phimap2(:)
      real, allocatable :: phimap3(:), bndx1(:), bndx2(:), bndx3(:)
      real, allocatable :: bndx4(:), cgbp(:,:), qmap1(:), qmap2(:)
      real, allocatable :: debmap1(:), debmap2(:)
      real, allocatable :: rdb(:), rsf1(:), rsf2(:), rqval(:)
      real, allocatable :: rphi(:), rwork(:), rgval(:)
      integer, allocatable :: ibndx(:), ibndy(:), ibndz(:)
      logical*1, allocatable :: idebmap(:,:,:)
      real spec, qfact
      real(c_double) atoms(4, 3)
      interface
        integer(c_int) function dg_kit_watched_grid() bind(C)
        import c_int
        end function dg_kit_watched_grid
      end interface
      character(len=16) mode
      type(dg_delphi_control) ctl
      type(dg_delphi_report) rep
      integer st, failures, n, nb
      data atoms / 11.3_c_double, 10.6_c_double, 11.2_c_double,
     &    1.0_c_double, 12.4_c_double, 11.7_c_double, 10.3_c_double,
     &    -0.5_c_double, 9.8_c_double, 11.1_c_double, 12.6_c_double,
     &    1.5_c_double /

      failures = 0
      mode = ' '
      if (command_argument_count() .ge. 1) call get_command_argument(1,
     &    mode)
      call check_layout(failures)
      call build_problem(plain, 21, 1.0_c_double, 4.0_c_double, atoms,
     &    0.0_c_double)
      call build_problem(salty, 21, 1.0_c_double, 4.0_c_double, atoms,
     &    0.15_c_double)
      n = plain%igrid**3
      nb = plain%igrid**2 + 1
      allocate (phimap1((n + 1) / 2), phimap2((n + 1) / 2))
      allocate (phimap3(n + 1), bndx1(nb), bndx2(nb), bndx3(nb))
      allocate (bndx4(nb), ibndx(nb), ibndy(nb), ibndz(nb), cgbp(5, 1))
      allocate (qmap1((n + 1) / 2), qmap2((n + 1) / 2))
      allocate (debmap1((n + 1) / 2), debmap2((n + 1) / 2))
      allocate (rwork(5))
      rwork = 0

c     ---- itit: no salt, nlit = 30, icon1 = 50 (clipped to 30) -------
      call set_common(plain, 30, 50)
      diff = mode .eq. 'diff'
c     The kit's early start-up reads igrid through dg_kit_grid_size.
      call expect(dg_kit_watched_grid() .eq. plain%igrid,
     &    'the kit does not see igrid (dg_kit_grid_size)', failures)
      call load(plain)
      call itit(plain%idpos, db, sf1, sf2, plain%iqpos, qval,
     &    plain%icount2a, plain%icount2b, plain%icount1a,
     &    plain%icount1b, spec, plain%nsp, phimap, phimap1, phimap2,
     &    phimap3, ibndx, ibndy, ibndz, bndx1, bndx2, bndx3, bndx4,
     &    gval, 1, cgbp)
      call expect(nlit .eq. 30 .and. icon1 .eq. 30,
     &    'itit must leave nlit = 30 and icon1 clipped to 30', failures)
      call control_by_hand(plain, 30, 50, ctl)
      call load_rank1(plain)
      call dg_delphi_itit(plain%idpos, rdb, rsf1, rsf2, plain%iqpos,
     &    rqval, plain%icount2a, plain%icount2b, plain%icount1a,
     &    plain%icount1b, spec, plain%nsp, rphi, phimap1, phimap2,
     &    phimap3, ibndx, ibndy, ibndz, bndx1, bndx2, bndx3, bndx4,
     &    rgval, 1, rwork, ctl, rep, st)
      call expect(st .eq. DG_OK, 'direct dg_delphi_itit failed',
     &    failures)
      call expect(all(reshape(phimap, [n]) .eq. rphi),
     &    'itit replacement and direct call differ', failures)
      call expect(all(reshape(db(:, 1:plain%icount2b),
     &    [6 * plain%icount2b]) .eq. rdb(1:6 * plain%icount2b)),
     &    'itit replacement left db unlike the direct call', failures)

c     ---- nitit: salt, nlit = 20, icon1 = 10, nonit = 30, maxc --------
      call set_common(salty, 20, 10)
      nnit = 30
      res2 = 1.0e-4
      call load(salty)
      call nitit(salty%idpos, db, sf1, sf2, salty%iqpos, qval,
     &    salty%icount2a, salty%icount2b, salty%icount1a,
     &    salty%icount1b, spec, salty%nsp, phimap, phimap1, phimap2,
     &    phimap3, idebmap, ibndx, ibndy, ibndz, bndx1, bndx2, bndx3,
     &    bndx4, qmap1, qmap2, debmap1, debmap2, 1, qfact)
      call expect(nlit .eq. 10 .and. icon1 .eq. 10,
     &    'nitit must leave nlit = icon1 = 10', failures)
      call control_by_hand(salty, 20, 10, ctl)
      ctl%nonit = 30
      ctl%maxc = 1.0e-4
      call load_rank1(salty)
      call dg_delphi_nitit(salty%idpos, rdb, rsf1, rsf2, salty%iqpos,
     &    rqval, salty%icount2a, salty%icount2b, salty%icount1a,
     &    salty%icount1b, spec, salty%nsp, rphi, phimap1, phimap2,
     &    phimap3, reshape(idebmap, [n]), ibndx, ibndy, ibndz, bndx1,
     &    bndx2, bndx3, bndx4, qmap1, qmap2, debmap1, debmap2, 1, qfact,
     &    ctl, rep, st)
      call expect(st .eq. DG_OK, 'direct dg_delphi_nitit failed',
     &    failures)
      call expect(all(reshape(phimap, [n]) .eq. rphi),
     &    'nitit replacement and direct call differ', failures)
      call expect(relpar .eq. real(rep%relpar),
     &    'nitit must leave the final relpar in COMMON', failures)
      call expect(rep%result%nonlinear_blocks .gt. 0,
     &    'nitit ran no nonlinear block', failures)

      if (failures .gt. 0) then
        write (*, '(i0, a)') failures, ' check(s) failed'
        error stop 1
      end if
      write (*, '(a, i0, a)') 'DelPhi stand-in with REAL*',
     &    storage_size(spec) / 8, ': itit and nitit replacements OK'

      contains

c     The COMMON values of a run (as DelPhi's main program sets them).
      subroutine set_common(p, nlit_value, icon1_value)
      type(delphi_problem), intent(in) :: p
      integer, intent(in) :: nlit_value, icon1_value
      igrid = p%igrid
      nlit = nlit_value
      icon1 = icon1_value
      icon2 = 1
      nnit = 0
      iautocon = .false.
      imanual = .false.
      iper = .false.
      diff = .false.
      icheb = .false.
      rionst = real(p%rionst)
      res1 = 0
      res2 = 0
      res5 = 0
      gten = 0
      tol = 1.0e-7
      epsout = real(p%epsout)
      deblen = real(p%deblen)
      scale = real(p%scale)
      chi2 = real(p%chi(1))
      chi3 = real(p%chi(2))
      chi4 = real(p%chi(3))
      chi5 = real(p%chi(4))
      relpar = 1
      end subroutine set_common

c     The same values written into a control by hand (not through the
c     kit's mapping), for the direct call.
      subroutine control_by_hand(p, nlit_value, icon1_value, c)
      type(delphi_problem), intent(in) :: p
      integer, intent(in) :: nlit_value, icon1_value
      type(dg_delphi_control), intent(out) :: c
      call dg_delphi_default_control(c)
      c%igrid = p%igrid
      c%nlit = nlit_value
      c%icon1 = icon1_value
      c%ionic_strength = real(p%rionst)
      c%epsout = real(p%epsout)
      c%deblen = real(p%deblen)
      c%scale = real(p%scale)
      c%chi = real(p%chi)
      c%relpar = 1
      end subroutine control_by_hand

c     DelPhi's arrays of problem p in default REAL, DelPhi's shapes.
      subroutine load(p)
      type(delphi_problem), intent(in) :: p
      db = real(p%db)
      sf1 = real(p%sf1)
      sf2 = real(p%sf2)
      qval = real(p%qval)
      gval = real(p%gval)
      phimap = real(p%phimap)
      idebmap = p%idebmap
      spec = real(p%spec)
      qfact = real(p%qfact)
      end subroutine load

c     The same as rank-1 arrays, for the generic entry points.
      subroutine load_rank1(p)
      type(delphi_problem), intent(in) :: p
      rdb = real(reshape(p%db, [size(p%db)]))
      rsf1 = real(p%sf1)
      rsf2 = real(p%sf2)
      rqval = real(p%qval)
      rgval = real(p%gval)
      rphi = real(reshape(p%phimap, [size(p%phimap)]))
      end subroutine load_rank1

      end program standin

      subroutine expect(condition, message, failures)
      logical condition
      character(len=*) message
      integer failures
      if (condition) return
      failures = failures + 1
      write (*, '(2a)') 'FAILED: ', message
      end

c     The stand-in COMMON blocks have DelPhi's byte offsets.
      subroutine check_layout(failures)
      integer failures
      include 'standin_common.h'
      integer r
      r = storage_size(scale) / 8
      call expect(loc(nlit) - loc(igrid) .eq. 8 .and.
     &    loc(icon1) - loc(igrid) .eq. 120 .and.
     &    loc(icon2) - loc(igrid) .eq. 124 .and.
     &    loc(nbgp) - loc(igrid) .eq. 244, 'ival1 layout', failures)
      call expect(loc(rionst) - loc(scale) .eq. 5 * r .and.
     &    loc(gten) - loc(scale) .eq. 8 * r .and.
     &    loc(epsout) - loc(scale) .eq. 12 * r .and.
     &    loc(deblen) - loc(scale) .eq. 21 * r .and.
     &    loc(chi2) - loc(scale) .eq. 26 * r .and.
     &    loc(relpar) - loc(scale) .eq. 31 * r .and.
     &    loc(res1) - loc(scale) .eq. 32 * r .and.
     &    loc(tol) - loc(scale) .eq. 34 * r .and.
     &    loc(res5) - loc(scale) .eq. 36 * r, 'val1 layout', failures)
      call expect(loc(iper(6)) - loc(iautocon) .eq. 24 .and.
     &    loc(diff) - loc(iautocon) .eq. 44 .and.
     &    loc(icheb) - loc(iautocon) .eq. 80 .and.
     &    loc(imanual) - loc(iautocon) .eq. 264 .and.
     &    loc(verbose) - loc(iautocon) .eq. 288, 'log1 layout',
     &    failures)
      end
