c     Stand-in for DelPhi's own itit4j.f in the kit's build test: the
c     kit must take it out of the build; if it is ever called, fail.
      subroutine itit
      write (*, '(a)') 'the stand-in itit4j.f was linked: kit failed'
      stop 3
      end
