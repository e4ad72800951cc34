/* Helpers for the physics tests: small molecules and default settings built in code. */
#ifndef HOST_TEST_SUPPORT_H
#define HOST_TEST_SUPPORT_H

#include <stdlib.h>
#include <string.h>

#include "molecule.h"
#include "settings.h"

/* DelPhi's defaults (doc 1), as the settings loader fills them. */
static inline void test_default_settings(run_settings *s) {
    memset(s, 0, sizeof *s);
    s->indi = 2.0, s->exdi = 80.0, s->prbrad = 1.4, s->ionrad = 2.0;
    s->valence[0] = s->valence[1] = s->valence[2] = s->valence[3] = 1;
    s->temperature = 297.3342;
    s->surface = SURFACE_MOLECULAR;
    s->bndcon = BC_DIPOLAR;
    s->conint = 10, s->confra = 1;
    s->energy_grid = 1;
}

/* A molecule of count atoms (coordinates, charges and radii from the arrays). */
static inline molecule test_molecule(size_t count, const double *xyz, const double *q,
                                     const double *r) {
    molecule m;
    memset(&m, 0, sizeof m);
    m.atoms = calloc(count, sizeof(atom));
    m.count = count;
    strcpy(m.source, "test");
    for (size_t i = 0; i < count; ++i) {
        atom *a = &m.atoms[i];
        a->x = xyz[3 * i], a->y = xyz[3 * i + 1], a->z = xyz[3 * i + 2];
        a->charge = q[i], a->radius = r[i];
        strcpy(a->record, "ATOM");
        a->serial = (int)i + 1;
        strcpy(a->name, "X");
        strcpy(a->residue, "TST");
        a->chain = ' ', a->insertion = ' ';
        a->source_line = (int)i + 1;
    }
    return m;
}

static inline void test_molecule_free(molecule *m) {
    free(m->atoms);
    m->atoms = NULL, m->count = 0;
}

#endif /* HOST_TEST_SUPPORT_H */
