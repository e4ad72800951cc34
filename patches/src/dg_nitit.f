c     delphi-gpu drop-in for DelPhi's nonlinear SOR routine nitit (file
c     nitit.f): the same 30 arguments, the COMMON values read from
c     DelPhi's own header (through dg_delphi_common.inc), the solve done
c     by delphi-gpu (dg_delphi_nitit).  Written for this kit; contains
c     no DelPhi code.  Compile with DelPhi's own flags.
      subroutine nitit(idpos, db, sf1, sf2, iqpos, qval, icount2a,
     &    icount2b, icount1a, icount1b, spec, nsp, phimap, phimap1,
     &    phimap2, phimap3, idebmap, ibndx, ibndy, ibndz, bndx1, bndx2,
     &    bndx3, bndx4, qmap1, qmap2, debmap1, debmap2, idirectalg,
     &    qfact)
      use delphi_gpu, only: dg_delphi_control, dg_delphi_report,
     &    dg_delphi_default_control, dg_delphi_nitit
      use delphi_gpu_kit, only: dg_kit_configure, dg_kit_finish
      include 'dg_delphi_common.inc'
      integer idpos(*), iqpos(*), icount2a, icount2b, icount1a
      integer icount1b, nsp, ibndx(*), ibndy(*), ibndz(*), idirectalg
      real db(*), sf1(*), sf2(*), qval(*), spec, phimap(*)
      real phimap1(*), phimap2(*), phimap3(*), bndx1(*), bndx2(*)
      real bndx3(*), bndx4(*), qmap1(*), qmap2(*), debmap1(*)
      real debmap2(*), qfact
      logical*1 idebmap(*)
      type(dg_delphi_control) dgk_ctl
      type(dg_delphi_report) dgk_rep
      integer dgk_st

      include 'dg_common_to_control.inc'
      call dg_kit_configure('nitit', dgk_ctl)
      call dg_delphi_nitit(idpos, db, sf1, sf2, iqpos, qval, icount2a,
     &    icount2b, icount1a, icount1b, spec, nsp, phimap, phimap1,
     &    phimap2, phimap3, idebmap, ibndx, ibndy, ibndz, bndx1, bndx2,
     &    bndx3, bndx4, qmap1, qmap2, debmap1, debmap2, idirectalg,
     &    qfact, dgk_ctl, dgk_rep, dgk_st)
      call dg_kit_finish('nitit', dgk_st, dgk_rep)
c     What DelPhi's nitit leaves in COMMON: nlit = icon1 = 10 and the
c     final nonlinear relaxation parameter.
      nlit = dgk_rep%nlit
      icon1 = dgk_rep%icon1
      relpar = dgk_rep%relpar
      end
