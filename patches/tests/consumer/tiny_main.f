c     Smallest DelPhi-like program for the installed-kit test: a 5^3
c     grid with faces at 1 and no charges, so phi = 1 everywhere.
      program tiny
      include 'standin_common.h'
      real phimap(5,5,5), db(6,2), sf1(63), sf2(63), qval(1), gval(1)
      real p1(63), p2(63), p3(126), b1(26), b2(26), b3(26), b4(26)
      real cgbp(5,1), spec
      integer idpos(2), iqpos(1), ib(26)
      phimap = 1.0
      phimap(2:4,2:4,2:4) = 0
      igrid = 5
      nlit = 200
      icon1 = 10
      icon2 = 1
      iautocon = .false.
      iper = .false.
      diff = .false.
      icheb = .false.
      imanual = .false.
      rionst = 0
      gten = 0
      res1 = 0
      res2 = 0
      res5 = 0
      spec = 0.5
      call itit(idpos, db, sf1, sf2, iqpos, qval, 0, 0, 0, 0, spec, 2,
     &    phimap, p1, p2, p3, ib, ib, ib, b1, b2, b3, b4, gval, 1, cgbp)
      if (abs(phimap(3,3,3) - 1.0) .gt. 1e-5) stop 1
      print *, 'tiny DelPhi OK', phimap(3,3,3), phimap(1,1,1)
      end
