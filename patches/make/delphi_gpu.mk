# delphi_gpu.mk: build DelPhi with delphi-gpu in place of its SOR routines (itit, nitit).
# GNU make (>= 3.82) fragment.  In DelPhi's Makefile, AFTER the lines that define the object
# lists and BEFORE the link rule, add the one line
#
#     include /path/to/delphi_kit/make/delphi_gpu.mk
#
# then build with
#
#     make clean && make GPU=ON DELPHI_GPU_PREFIX=/where/delphi-gpu/is/installed
#
# With GPU unset or OFF this fragment changes nothing (only `make clean` also removes the files
# it generates).  With GPU=ON it
#   - finds the make variable(s) whose object list holds itit4j.o and nitit.o (OBJS, OBJ2, ...),
#     takes those two out and puts in dg_itit.o, dg_nitit.o and dg_kit_link.ld;
#   - compiles dg_itit.o and dg_nitit.o with DelPhi's compiler and Fortran flags (the first of
#     FFLAGS FCFLAGS FLAGS F77FLAGS that the Makefile or the command line defines);
#   - finds DelPhi's header(s) that declare the COMMON blocks /ival1/ /val1/ /log1/ and
#     generates dg_delphi_common.inc, which includes them (rewritten when the list changes);
#   - refuses to link when dg_itit.o and DelPhi's own objects disagree on the size of COMMON
#     /val1/ (REAL = real*4 in one and real*8 in the other);
#   - links the delphi-gpu libraries through dg_kit_link.ld, a linker script that stands in the
#     object list, so that DelPhi's link rule needs no libraries variable, and sets the run path
#     (LD_RUN_PATH, GNU ld) as DELPHI_GPU_RPATH says;
#   - links libdelphi_gpu_start.a's start-up in (the symbol dg_wait_start_entry kept): when
#     DelPhi starts on a busy machine, OpenMP's idle threads wait passively (patches/README.md).
#
# Settings (defaults in brackets), all overridable on the make command line:
#   DELPHI_GPU_PREFIX    install prefix of delphi-gpu [/usr/local]
#   DELPHI_GPU_MODDIR    its Fortran modules [$(DELPHI_GPU_PREFIX)/include/delphi_gpu/fortran]
#   DELPHI_GPU_LIBDIR    its libraries [$(DELPHI_GPU_PREFIX)/lib, or lib64 when that exists]
#   DELPHI_GPU_HEADERS   DelPhi's COMMON header(s) [found: the *.h in ., VPATH and the -I
#                        directories of the flags that declare /ival1/, /val1/ or /log1/]
#   DELPHI_GPU_OBJS_VAR  object-list variable(s) to edit [found: those holding itit4j.o]
#   DELPHI_GPU_SOR_OBJS  DelPhi's SOR objects to remove [itit4j.o nitit.o]
#   DELPHI_GPU_FC        Fortran compiler [$(FC)]
#   DELPHI_GPU_FFLAGS    its flags [the flags variable found, see above]
#   DELPHI_GPU_RPATH     run path of the DelPhi executable: absolute (the library directories),
#                        origin ($ORIGIN-relative, for a relocatable install of DelPhi and
#                        delphi-gpu side by side; DELPHI_GPU_EXEDIR is where the executable
#                        lies [.]), none, or a literal path list [absolute]
#   DELPHI_GPU_EXTRA_LIBDIRS  more library directories (searched and put in the run path) []
#   DELPHI_GPU_CHECK_OBJS  DelPhi objects the REAL-size check reads [the .o files of all lists]
#   DELPHI_GPU_LIBS_VAR  if set, append -L/-l/-rpath flags to this variable instead of using
#                        dg_kit_link.ld (for a link rule that has a libraries variable) []
DELPHI_GPU_KIT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
delphi_gpu_saved_goal := $(.DEFAULT_GOAL)
DELPHI_GPU_GENERATED := dg_delphi_common.inc dg_itit.o dg_nitit.o dg_kit_link.ld dg_kit_real.log

# `make clean` removes what this fragment generates, whether GPU is ON or not (a makefile whose
# clean rule is a double-colon rule, `clean::`, needs DELPHI_GPU_NO_CLEAN_HOOK=1 and a
# `clean:: delphi_gpu_clean` line of its own).
.PHONY: delphi_gpu_clean
ifeq ($(DELPHI_GPU_NO_CLEAN_HOOK),)
clean: delphi_gpu_clean
endif
delphi_gpu_clean:
	rm -f $(DELPHI_GPU_GENERATED)

GPU ?= OFF
ifeq ($(GPU),ON)
ifeq ($(filter clean delphi_gpu_clean,$(MAKECMDGOALS)),)

DELPHI_GPU_PREFIX ?= /usr/local
DELPHI_GPU_MODDIR ?= $(DELPHI_GPU_PREFIX)/include/delphi_gpu/fortran
DELPHI_GPU_LIBDIR ?= $(if $(wildcard $(DELPHI_GPU_PREFIX)/lib64/libdelphi_gpu.*),$(DELPHI_GPU_PREFIX)/lib64,$(DELPHI_GPU_PREFIX)/lib)
DELPHI_GPU_SOR_OBJS ?= itit4j.o nitit.o
DELPHI_GPU_FC ?= $(FC)
DELPHI_GPU_RPATH ?= absolute
DELPHI_GPU_EXEDIR ?= .
DELPHI_GPU_EXTRA_LIBDIRS ?=
DELPHI_GPU_LIBS_VAR ?=

# ---- the flags variable --------------------------------------------------------------------
delphi_gpu_defined = $(filter file command% override environment%,$(origin $(1)))
ifeq ($(origin DELPHI_GPU_FLAGS_VAR),undefined)
DELPHI_GPU_FLAGS_VAR := $(firstword $(foreach v,FFLAGS FCFLAGS FLAGS F77FLAGS,$(if $(call delphi_gpu_defined,$(v)),$(v))))
endif
ifeq ($(origin DELPHI_GPU_FFLAGS),undefined)
ifeq ($(DELPHI_GPU_FLAGS_VAR),)
$(warning delphi_gpu.mk: none of FFLAGS FCFLAGS FLAGS F77FLAGS is defined; the replacements are compiled with no flags (set DELPHI_GPU_FFLAGS to DelPhi's Fortran flags))
endif
DELPHI_GPU_FFLAGS = $(if $(DELPHI_GPU_FLAGS_VAR),$($(DELPHI_GPU_FLAGS_VAR)))
endif

# ---- the object list(s) --------------------------------------------------------------------
# Every variable from the Makefile or the command line whose value holds the first SOR object
# (values that run shell commands are not expanded).
delphi_gpu_first_sor := $(firstword $(DELPHI_GPU_SOR_OBJS))
delphi_gpu_expandable = $(and $(call delphi_gpu_defined,$(1)),$(if $(findstring shell,$(value $(1))),,yes),$(if $(findstring DELPHI_GPU,$(1))$(findstring delphi_gpu,$(1)),,yes))
ifeq ($(origin DELPHI_GPU_OBJS_VAR),undefined)
DELPHI_GPU_OBJS_VAR := $(strip $(foreach v,$(.VARIABLES),$(if $(call delphi_gpu_expandable,$(v)),$(if $(filter $(delphi_gpu_first_sor),$($(v))),$(v)))))
endif
ifeq ($(strip $(DELPHI_GPU_OBJS_VAR)),)
$(error delphi_gpu.mk: no make variable lists $(delphi_gpu_first_sor); include this fragment after DelPhi's object lists, or set DELPHI_GPU_OBJS_VAR (and DELPHI_GPU_SOR_OBJS if DelPhi's SOR objects have other names))
endif
ifeq ($(wildcard $(DELPHI_GPU_MODDIR)/delphi_gpu.mod),)
$(error delphi_gpu.mk: no delphi_gpu.mod in $(DELPHI_GPU_MODDIR); set DELPHI_GPU_PREFIX or DELPHI_GPU_MODDIR)
endif

# ---- the COMMON header(s) ------------------------------------------------------------------
# A header declares a block when, with all blanks and line breaks removed (continuation lines
# after a bare `common` included), its text holds /ival1/, /val1/ or /log1/.
delphi_gpu_flag_dirs = $(patsubst -I%,%,$(filter -I%,$(subst -I ,-I,$(DELPHI_GPU_FFLAGS))))
delphi_gpu_search_dirs = $(sort . $(subst :, ,$(VPATH)) $(delphi_gpu_flag_dirs))
ifeq ($(origin DELPHI_GPU_HEADERS),undefined)
DELPHI_GPU_HEADERS := $(sort $(notdir $(shell for f in $(addsuffix /*.h,$(delphi_gpu_search_dirs)); do \
  [ -f "$$f" ] && tr -d ' \t\r\n' < "$$f" | grep -qi '/ival1/\|/val1/\|/log1/' && echo "$$f"; done 2>/dev/null)))
ifeq ($(strip $(DELPHI_GPU_HEADERS)),)
$(error delphi_gpu.mk: no header in $(delphi_gpu_search_dirs) declares the COMMON blocks /ival1/ /val1/ /log1/; set DELPHI_GPU_HEADERS)
endif
endif
# dg_delphi_common.inc is rewritten whenever its contents would change.
delphi_gpu_inc_text := c     Generated by delphi_gpu.mk: DelPhi COMMON headers.\n$(foreach h,$(DELPHI_GPU_HEADERS),      include '$(h)'\n)
delphi_gpu_inc_sync := $(shell printf "$(delphi_gpu_inc_text)" | cmp -s - dg_delphi_common.inc || printf "$(delphi_gpu_inc_text)" > dg_delphi_common.inc)
$(info delphi_gpu.mk: object list(s) $(DELPHI_GPU_OBJS_VAR); flags $(if $(DELPHI_GPU_FLAGS_VAR),$$($(DELPHI_GPU_FLAGS_VAR)),DELPHI_GPU_FFLAGS); COMMON header(s) $(DELPHI_GPU_HEADERS))

# ---- libraries and run path ----------------------------------------------------------------
delphi_gpu_libdirs := $(DELPHI_GPU_LIBDIR) $(DELPHI_GPU_EXTRA_LIBDIRS)
delphi_gpu_space := $(subst ,, )
delphi_gpu_colon := :
delphi_gpu_origin_dirs = $(foreach d,$(delphi_gpu_libdirs),$$ORIGIN/$(shell realpath -m --relative-to=$(abspath $(DELPHI_GPU_EXEDIR)) $(abspath $(d))))
delphi_gpu_rpath := $(subst $(delphi_gpu_space),$(delphi_gpu_colon),$(strip \
  $(if $(filter absolute,$(DELPHI_GPU_RPATH)),$(foreach d,$(delphi_gpu_libdirs),$(abspath $(d))),\
  $(if $(filter origin,$(DELPHI_GPU_RPATH)),$(delphi_gpu_origin_dirs),\
  $(if $(filter none,$(DELPHI_GPU_RPATH)),,$(DELPHI_GPU_RPATH))))))

DELPHI_GPU_OBJS := dg_itit.o dg_nitit.o
ifeq ($(strip $(DELPHI_GPU_LIBS_VAR)),)
DELPHI_GPU_OBJS += dg_kit_link.ld
ifneq ($(delphi_gpu_rpath),)
export LD_RUN_PATH := $(delphi_gpu_rpath)
endif
else
$(DELPHI_GPU_LIBS_VAR) += $(addprefix -L,$(delphi_gpu_libdirs)) \
  $(if $(delphi_gpu_rpath),-Wl$(delphi_gpu_colon)-rpath$(delphi_gpu_colon)'$(delphi_gpu_rpath)') \
  -Wl$(delphi_gpu_colon)--undefined=dg_wait_start_entry \
  -ldelphi_gpu_fortran -ldelphi_gpu -ldelphi_gpu_start
endif

# Take the SOR objects out of every object list found; add the replacements to the first one
# (a later list that is built from an earlier one already gets them).
delphi_gpu_first_list := $(firstword $(DELPHI_GPU_OBJS_VAR))
define delphi_gpu_edit_list
$(1) := $$(filter-out $$(DELPHI_GPU_SOR_OBJS),$$($(1)))
endef
$(foreach v,$(DELPHI_GPU_OBJS_VAR),$(eval $(call delphi_gpu_edit_list,$(v))))
$(foreach v,$(DELPHI_GPU_OBJS_VAR),$(if $(filter dg_itit.o,$($(v))),,$(if $(filter $(v),$(delphi_gpu_first_list)),$(eval $(v) += $(DELPHI_GPU_OBJS)))))

# DelPhi's objects that the REAL-size check compares with: the .o words of every variable from
# the makefile or the command line (its object lists), without the replacements.
ifeq ($(origin DELPHI_GPU_CHECK_OBJS),undefined)
DELPHI_GPU_CHECK_OBJS := $(filter-out $(DELPHI_GPU_OBJS) $(DELPHI_GPU_SOR_OBJS),$(sort $(foreach v,$(.VARIABLES),$(if $(call delphi_gpu_expandable,$(v)),$(filter %.o,$($(v)))))))
endif
delphi_gpu_delphi_objs := $(DELPHI_GPU_CHECK_OBJS)

dg_itit.o: $(DELPHI_GPU_KIT)/src/dg_itit.f $(DELPHI_GPU_KIT)/src/dg_common_to_control.inc dg_delphi_common.inc
	$(DELPHI_GPU_FC) $(DELPHI_GPU_FFLAGS) -I. -I$(DELPHI_GPU_KIT)/src -I$(DELPHI_GPU_MODDIR) -c $< -o $@

dg_nitit.o: $(DELPHI_GPU_KIT)/src/dg_nitit.f $(DELPHI_GPU_KIT)/src/dg_common_to_control.inc dg_delphi_common.inc
	$(DELPHI_GPU_FC) $(DELPHI_GPU_FFLAGS) -I. -I$(DELPHI_GPU_KIT)/src -I$(DELPHI_GPU_MODDIR) -c $< -o $@

# The linker script is written only after the REAL-size check passed.
dg_kit_link.ld dg_kit_real.log: dg_itit.o $(delphi_gpu_delphi_objs)
	@sh $(DELPHI_GPU_KIT)/make/check_real_size.sh dg_itit.o $(delphi_gpu_delphi_objs) > dg_kit_real.log || \
	  { cat dg_kit_real.log >&2; rm -f dg_kit_link.ld; exit 1; }
	@{ printf '/* Generated by delphi_gpu.mk: the delphi-gpu libraries. */\n'; \
	   for d in $(abspath $(delphi_gpu_libdirs)); do printf 'SEARCH_DIR("%s")\n' "$$d"; done; \
	   printf 'EXTERN(dg_wait_start_entry)\n'; \
	   printf 'INPUT(-ldelphi_gpu_fortran -ldelphi_gpu -ldelphi_gpu_start)\n'; } > dg_kit_link.ld

endif
endif
.DEFAULT_GOAL := $(delphi_gpu_saved_goal)
