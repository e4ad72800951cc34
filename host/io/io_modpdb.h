/* host_io: the atoms as the run used them, with their charges and radii (DelPhi's out(modpdb)
 * and out(modpdb4)): in DelPhi's own PDB format 1 or 4, or as PQR.
 *
 *   MODPDB_DELPHI1  lines "DELPHI PDB FILE" and "FORMAT = 1", then ATOM/HETATM records with the
 *                   coordinates in columns 31-54, the radius in 55-60 (F6.2) and the charge in
 *                   61-67 (F7.3): DelPhi's out(modpdb) layout, charges to 3 decimals
 *   MODPDB_DELPHI4  "FORMAT = 4": the charge in 55-62 (F8.4) and the radius in 63-70 (F8.3)
 *   MODPDB_PQR      PQR records: charge (F8.4) and radius (F7.4) after the coordinates
 * Every form is read back by this program's readers. */
#ifndef HOST_IO_MODPDB_H
#define HOST_IO_MODPDB_H

#include "io_common.h"
#include "molecule.h"

enum modpdb_format { MODPDB_NONE = 0, MODPDB_DELPHI1 = 1, MODPDB_DELPHI4 = 4, MODPDB_PQR = 5 };

/** Write the atoms of mol in the given modpdb_format (atomically). */
int modpdb_write(const char *path, const molecule *mol, int format, io_error *err);

#endif /* HOST_IO_MODPDB_H */
