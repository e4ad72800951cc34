c     Stand-in for DelPhi's own nitit.f in the kit's build test: the
c     kit must take it out of the build; if it is ever called, fail.
      subroutine nitit
      write (*, '(a)') 'the stand-in nitit.f was linked: kit failed'
      stop 3
      end
