/* host_io: everything the physics and app halves of delphi-gpu call from the I/O half.
 *
 *   io_common.h    io_error (message with file, line, field), io_notes, atomic_file
 *   io_settings.h  settings_load(): defaults, DelPhi parameter file, options (CLI.md), paths
 *   io_molecule.h  molecule_load(): PQR, PDB + siz/crg, DelPhi PDB formats; in(frc) sites
 *   io_maps.h      map_grid; DelPhi phimap, OpenDX, cube and MRC/CCP4 writers and readers
 *   io_epsmap.h    DelPhi's compact dielectric map (out(eps)) writer and reader
 *   io_sites.h     site potentials (frc-like) output
 *   io_summary.h   run_summary and its JSON writer
 *   io_log.h       terminal + log-file logger with --quiet
 * Status codes: io_status (0 = IO_OK).  None of these functions prints (except io_log) or
 * exits. */
#ifndef HOST_IO_H
#define HOST_IO_H

#include "io_common.h"
#include "io_epsmap.h"
#include "io_log.h"
#include "io_maps.h"
#include "io_modpdb.h"
#include "io_molecule.h"
#include "io_settings.h"
#include "io_sites.h"
#include "io_surface_charges.h"
#include "io_summary.h"

#endif /* HOST_IO_H */
