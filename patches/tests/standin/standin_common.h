c     Stand-in for DelPhi's COMMON-block header, for the kit's build
c     test only (not DelPhi's file): the variables the SOR routines
c     read, at the byte offsets of DelPhi's COMMON blocks (SP and
c     DP: REAL is the default real), padded with dummy entries.
      integer igrid, nnit, nlit, icon1, icon2, ngp, nhgp, nbgp
      integer sipad1(27), sipad2(27)
c     The blocks stand on continuation lines after a bare common, as in
c     DelPhi's qlog.h: the kit's header search must find them there.
      common
     &    /ival1/ igrid, nnit, nlit, sipad1, icon1, icon2, sipad2,
     &    ngp, nhgp, nbgp
      real scale, rionst, gten, epsout, epsin, deblen
      real chi2, chi3, chi4, chi5, relpar, res1, res2, tol, res5
      real svpad1(4), svpad2(2), svpad3(3), svpad4(7), svpad5(4)
      real svpad6(1), svpad7(1)
      common
     &    /val1/ scale, svpad1, rionst, svpad2, gten, svpad3,
     &    epsout, epsin, svpad4, deblen, svpad5, chi2, chi3, chi4, chi5,
     &    svpad6, relpar, res1, res2, tol, svpad7, res5
      logical iautocon, iper(6), diff, ipoten, igraph, icheb, imanual
      logical verbose
      logical slpad1(4), slpad2(4), slpad3(2), slpad4(45), slpad5(5)
      common
     &    /log1/ iautocon, iper, slpad1, diff, slpad2, ipoten,
     &    igraph, slpad3, icheb, slpad4, imanual, slpad5, verbose
      integer ibc
      common /scaleint/ ibc
